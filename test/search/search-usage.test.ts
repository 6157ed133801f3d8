import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProviderError, type SearchProvider } from "../../functions/search/types.ts";
import { createTestContext, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";

interface UsageItem {
  id: number;
  request_id: string;
  query: string;
  status_code: number;
  result_count: number;
  results: Record<string, unknown>[];
  cached: boolean | null;
  response_size_bytes: number;
  created_at: string;
}
interface UsagePage {
  items: UsageItem[];
  total: number;
  limit: number;
  page: number;
  total_pages: number;
  has_more: boolean;
}

// GET {search_url}/usage (spec 2.9, 4.7): one row per authenticated search request, successful or not.
describe.each(driverCases(["pglite", "pg"]))("search usage on $driver", ({ open }) => {
  let db: TestDatabase;
  let ctx: TestContext;
  let key: string;
  let other: string;
  const provider: SearchProvider = {
    name: "fixed",
    supports: () => true,
    async search(q) {
      if (q.text === "explode") throw new ProviderError("fixed", "down", 500);
      return {
        hits: [
          { url: "https://a.example/1", title: "One", snippet: "first", siteName: "a.example", rank: 1, date: "2024-01-01" },
          { url: "https://b.example/2", title: "Two", snippet: "second", siteName: "b.example", rank: 2 },
        ],
      };
    },
  };
  const ids: Record<string, string> = {};

  async function get(path: string, k = key): Promise<UsagePage> {
    const res = await ctx.call(k, path);
    expect(res.status).toBe(200);
    return (await res.json()) as UsagePage;
  }

  beforeAll(async () => {
    db = await open();
    ctx = createTestContext(db.db, { search: { providers: [provider] } });
    const { key: k, accountId } = await ctx.newKey({ plan: "pro" });
    key = k;
    ({ key: other } = await ctx.newKey({ plan: "pro" }));
    ctx.clock.set("2026-11-21T10:00:00.000Z");
    const ok = await ctx.call(key, "/search?query=ospreys%20site:a.example");
    ids.ok = ok.headers.get("x-request-id") ?? "";
    ids.okBytes = String((await ok.arrayBuffer()).byteLength);
    ctx.clock.set("2026-11-21T10:00:30.000Z");
    await ctx.call(key, "/search?query=OSPREYS%20site:a.example"); // within the cache lifetime
    ctx.clock.set("2026-11-21T10:01:00.000Z");
    ids.bad = (await ctx.call(key, "/search?query=x&page=11")).headers.get("x-request-id") ?? "";
    ctx.clock.set("2026-11-21T10:02:00.000Z");
    ids.busy = (await ctx.call(key, "/search?query=explode")).headers.get("x-request-id") ?? "";
    await ctx.services.accounts.revoke(accountId, ["search_access"]);
    ctx.clock.set("2026-11-21T10:04:00.000Z");
    await ctx.call(key, "/search?query=revoked");
    await ctx.call(other, "/search?query=someone%20else");
  });
  afterAll(async () => {
    await db.dispose();
  });

  it("lists every request of the account, newest first, with the documented fields", async () => {
    const page = await get("/search/usage");
    expect(page).toMatchObject({ total: 5, limit: 100, page: 1, total_pages: 1, has_more: false });
    expect(page.items.map((i) => [i.query, i.status_code, i.cached])).toEqual([
      ["revoked", 402, null],
      ["explode", 503, null],
      ["x", 400, null],
      ["OSPREYS", 200, true],
      ["ospreys", 200, false],
    ]);
    const first = page.items[4] as UsageItem;
    expect(first).toEqual({
      id: expect.any(Number),
      request_id: ids.ok,
      query: "ospreys",
      status_code: 200,
      result_count: 1,
      results: [{ position: 1, site_name: "a.example", snippet: "first", title: "One", url: "https://a.example/1" }],
      cached: false,
      response_size_bytes: Number(ids.okBytes),
      created_at: "2026-11-21T10:00:00.000Z",
    });
    const bad = page.items[2] as UsageItem;
    expect(bad).toMatchObject({ request_id: ids.bad, result_count: 0, results: [] });
    expect(bad.response_size_bytes).toBeGreaterThan(50);
    expect((page.items[1] as UsageItem).request_id).toBe(ids.busy);
    expect((page.items[3] as UsageItem).results).toEqual(first.results);
  });

  it("filters by status: completed is a 2xx answer, failed any other", async () => {
    expect((await get("/search/usage?status=completed")).items.map((i) => i.status_code)).toEqual([200, 200]);
    expect((await get("/search/usage?status=failed")).items.map((i) => i.status_code)).toEqual([402, 503, 400]);
  });

  it("filters by creation time (both bounds exclusive)", async () => {
    const page = await get("/search/usage?created_after=2026-11-21T10:00:00Z&created_before=2026-11-21T10:03:00Z");
    expect(page.items.map((i) => i.status_code)).toEqual([503, 400, 200]);
    expect((await get("/search/usage?created_after=2026-11-21T10:03:30%2B00:00")).total).toBe(1);
  });

  it("paginates", async () => {
    const p2 = await get("/search/usage?limit=2&page=2");
    expect(p2).toMatchObject({ total: 5, limit: 2, page: 2, total_pages: 3, has_more: true });
    expect(p2.items.map((i) => i.status_code)).toEqual([400, 200]);
    expect((await get("/search/usage?limit=2&page=4")).items).toEqual([]);
  });

  it("shows each account only its own requests", async () => {
    const page = await get("/search/usage", other);
    expect(page.items.map((i) => i.query)).toEqual(["someone else"]);
  });

  it.each([
    "/search/usage?status=done",
    "/search/usage?limit=0",
    "/search/usage?limit=1001",
    "/search/usage?page=0",
    "/search/usage?created_after=yesterday",
    "/search/usage?created_before=2026-02-30",
    "/search/usage?created_before=2026-13-01",
    "/search/usage?created_after=2026-02-29T10:00:00Z",
    "/search/usage?created_after=2026-11-22T00:00:00Z&created_before=2026-11-21T00:00:00Z",
    "/search/usage?start_after=2026-11-21T00:00:00Z",
  ])("%s → 400", async (path) => {
    const res = await ctx.call(key, path);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("INVALID_INPUT");
  });
});
