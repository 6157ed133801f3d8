import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { OWN_WRITES_WAIT_MS } from "../../functions/search/search.service.ts";
import type { SearchHit, SearchProvider, SearchQuery } from "../../functions/search/types.ts";
import { searchCache } from "../../schema/tables/index.ts";
import { createTestContext, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";

/** A provider whose answer each test sets; it counts what it was asked. */
function scripted(name: string, cacheable?: boolean) {
  const state = { calls: 0, hits: [] as SearchHit[] };
  const provider: SearchProvider = {
    name,
    supports: () => true,
    ...(cacheable === undefined ? {} : { cacheable }),
    async search(_q: SearchQuery) {
      state.calls++;
      return { hits: state.hits };
    },
  };
  return { provider, state };
}

const hit = (url: string, rank: number): SearchHit => ({ url, title: url, snippet: "", siteName: new URL(url).hostname, rank });

// The search cache (60 s) keeps the upstreams' hits only: the local index (cacheable: false) is
// asked on every request, so what an account has just fetched or imported is never hidden by an
// answer cached before it.
describe.each(driverCases(["pglite"]))("search cache on $driver", ({ open }) => {
  let db: TestDatabase;
  let mixed: TestContext;
  let localOnly: TestContext;
  let key: string;
  let keyLocal: string;
  const local = scripted("local", false);
  const upstream = scripted("upstream");

  beforeAll(async () => {
    db = await open();
    mixed = createTestContext(db.db, { search: { providers: [local.provider, upstream.provider] } });
    localOnly = createTestContext(db.db, { search: { providers: [local.provider] } });
    ({ key } = await mixed.newKey({ plan: "pro" }));
    ({ key: keyLocal } = await localOnly.newKey({ plan: "pro" }));
  });
  afterAll(async () => {
    await db.dispose();
  });
  beforeEach(async () => {
    await db.db.delete(searchCache);
    for (const s of [local.state, upstream.state]) {
      s.calls = 0;
      s.hits = [];
    }
  });

  const urls = async (ctx: TestContext, k: string, query: string) => {
    const res = await ctx.call(k, `/search?${new URLSearchParams({ query })}`);
    expect(res.status).toBe(200);
    return ((await res.json()) as { results: { url: string }[] }).results.map((r) => r.url);
  };
  const cachedFlags = async (ctx: TestContext, k: string, n: number) => {
    const res = await ctx.call(k, `/search/usage?limit=${n}`);
    return ((await res.json()) as { items: { cached: boolean }[] }).items.map((i) => i.cached);
  };

  it("reuses the upstream's hits within the minute and asks the local index every time", async () => {
    upstream.state.hits = [hit("https://web.example/a", 1)];
    expect(await urls(mixed, key, "plover")).toEqual(["https://web.example/a"]);
    // The account fetches a page in between: the local index has it now.
    local.state.hits = [hit("https://fetched.example/p", 1)];
    upstream.state.hits = [hit("https://web.example/changed", 1)];
    expect((await urls(mixed, key, "plover")).sort()).toEqual(["https://fetched.example/p", "https://web.example/a"]);
    expect([local.state.calls, upstream.state.calls]).toEqual([2, 1]);
    expect(await cachedFlags(mixed, key, 2)).toEqual([true, false]);
    // Past the minute the upstream is asked again.
    mixed.clock.advance(61_000);
    expect(await urls(mixed, key, "plover")).toContain("https://web.example/changed");
    expect(upstream.state.calls).toBe(2);
  });

  it("with the local index alone, stores nothing and answers every request from the index", async () => {
    expect(await urls(localOnly, keyLocal, "dunlin")).toEqual([]);
    local.state.hits = [hit("https://fetched.example/dunlin", 1)];
    expect(await urls(localOnly, keyLocal, "dunlin")).toEqual(["https://fetched.example/dunlin"]);
    expect(await db.db.select().from(searchCache)).toEqual([]);
    expect(await cachedFlags(localOnly, keyLocal, 2)).toEqual([false, false]);
  });

  it("reads an entry of the earlier shape (merged results, the local index's among them) as a miss", async () => {
    upstream.state.hits = [hit("https://web.example/a", 1)];
    await urls(mixed, key, "egret");
    await db.db.update(searchCache).set({ response: { results: [{ url: "https://stale.example/" }] } });
    expect(await urls(mixed, key, "egret")).toEqual(["https://web.example/a"]);
    expect(upstream.state.calls).toBe(2);
  });

  it("waits for its account's pages to reach the index at most OWN_WRITES_WAIT_MS, then answers", async () => {
    const stuck = createTestContext(db.db, { search: { providers: [local.provider], ownWrites: () => new Promise(() => {}) } });
    const { key: k } = await stuck.newKey({ plan: "pro" });
    local.state.hits = [hit("https://fetched.example/late", 1)];
    const started = performance.now();
    expect(await urls(stuck, k, "stilt")).toEqual(["https://fetched.example/late"]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(OWN_WRITES_WAIT_MS - 50);
  });
});
