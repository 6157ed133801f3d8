import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLocalIndex, type LocalIndex } from "../../functions/search/local/local-index.ts";
import { createSearxngProvider } from "../../functions/search/providers/searxng.ts";
import { OWN_WRITES_WAIT_MS } from "../../functions/search/search.service.ts";
import { searchCache } from "../../schema/tables/index.ts";
import { createTestContext, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { FIXTURE_NOW } from "../helpers/search-upstream-fixtures.ts";
import { startSearxng, type UpstreamStub } from "../helpers/search-upstreams.ts";

// The search cache (60 s) keeps the upstreams' hits only: the local index (cacheable: false) is
// asked on every request, so what an account has just fetched or imported is never hidden by an
// answer cached before it. The real local index, and the real SearXNG provider over its stub server.
describe.each(driverCases(["pglite"]))("search cache on $driver", ({ open }) => {
  let db: TestDatabase;
  let searxng: UpstreamStub;
  let index: LocalIndex;
  let mixed: TestContext;
  let localOnly: TestContext;
  let key: string;
  let keyLocal: string;
  let n = 0;

  beforeAll(async () => {
    db = await open();
    searxng = await startSearxng();
    index = createLocalIndex({ db: db.db });
    const upstream = createSearxngProvider({ baseUrl: searxng.url, now: () => FIXTURE_NOW });
    mixed = createTestContext(db.db, { search: { providers: [index.provider, upstream] } });
    localOnly = createTestContext(db.db, { search: { providers: [index.provider] } });
    ({ key } = await mixed.newKey({ plan: "pro" }));
    ({ key: keyLocal } = await localOnly.newKey({ plan: "pro" }));
  });
  afterAll(async () => {
    await searxng.close();
    await db.dispose();
  });
  beforeEach(async () => {
    await db.db.delete(searchCache);
  });

  /** A page about `word` written to the local index, as an import or a fetch writes one. */
  const indexPage = async (word: string) => {
    const url = `https://local.example/${word}-${++n}`;
    await index.writer.upsert([{ url, title: `About ${word}`, text: `A page about the ${word}, and only the ${word}.` }]);
    return url;
  };
  const urls = async (ctx: TestContext, k: string, query: string) => {
    const res = await ctx.call(k, `/search?${new URLSearchParams({ query })}`);
    expect(res.status).toBe(200);
    return ((await res.json()) as { results: { url: string }[] }).results.map((r) => r.url);
  };
  const cachedFlags = async (ctx: TestContext, k: string, count: number) => {
    const res = await ctx.call(k, `/search/usage?limit=${count}`);
    return ((await res.json()) as { items: { cached: boolean }[] }).items.map((i) => i.cached);
  };

  it("reuses the upstream's hits within the minute and asks the local index every time", async () => {
    const asked = searxng.requests.length;
    const first = await urls(mixed, key, "plover");
    expect(first.length).toBeGreaterThan(0);
    expect(searxng.requests.length).toBe(asked + 1);
    // A page about plovers reaches the local index in between (an import, or this account's fetch).
    const local = await indexPage("plover");
    const second = await urls(mixed, key, "plover");
    expect(second).toContain(local);
    expect(second.filter((u) => u !== local)).toEqual(first);
    expect(searxng.requests.length).toBe(asked + 1);
    expect(await cachedFlags(mixed, key, 2)).toEqual([true, false]);
    // Past the minute the upstream is asked again.
    mixed.clock.advance(61_000);
    await urls(mixed, key, "plover");
    expect(searxng.requests.length).toBe(asked + 2);
  });

  it("with the local index alone, stores nothing and answers every request from the index", async () => {
    expect(await urls(localOnly, keyLocal, "dunlin")).toEqual([]);
    const local = await indexPage("dunlin");
    expect(await urls(localOnly, keyLocal, "dunlin")).toEqual([local]);
    expect(await db.db.select().from(searchCache)).toEqual([]);
    expect(await cachedFlags(localOnly, keyLocal, 2)).toEqual([false, false]);
  });

  it("reads an entry of the earlier shape (merged results, the local index's among them) as a miss", async () => {
    const first = await urls(mixed, key, "egret");
    const asked = searxng.requests.length;
    await db.db.update(searchCache).set({ response: { results: [{ url: "https://stale.example/" }] } });
    expect(await urls(mixed, key, "egret")).toEqual(first);
    expect(searxng.requests.length).toBe(asked + 1);
  });

  it("waits for its account's pages to reach the index at most OWN_WRITES_WAIT_MS, then answers", async () => {
    const stuck = createTestContext(db.db, { search: { providers: [index.provider], ownWrites: () => new Promise(() => {}) } });
    const { key: k } = await stuck.newKey({ plan: "pro" });
    const local = await indexPage("stilt");
    const started = performance.now();
    expect(await urls(stuck, k, "stilt")).toEqual([local]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(OWN_WRITES_WAIT_MS - 50);
  });
});
