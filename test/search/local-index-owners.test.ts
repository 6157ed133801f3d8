import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { IndexDocument } from "../../functions/search/local/document.ts";
import { bm25Page, DEFAULT_BM25 } from "../../functions/search/local/ranking.ts";
import type { SearchQuery } from "../../functions/search/types.ts";
import { driverCases } from "../helpers/databases.ts";
import { expectConsistent, indexedDatabase, referenceScores, rows } from "../helpers/search-index.ts";

// Ownership in the local index's writer and ranking: one URL may have a global copy and a copy per
// account; each account sees the global documents and its own, its own copy in place of a global one.

const clock = { now: () => new Date("2026-06-15T12:00:00Z") };
const signal = new AbortController().signal;
const A = { accountId: "acct_owner_a" };
const B = { accountId: "acct_owner_b" };
const C = { accountId: "acct_owner_c" };
const query = (text: string, o: Partial<SearchQuery> = {}): SearchQuery => ({
  text,
  location: "US",
  language: "en",
  includeDomains: [],
  excludeDomains: [],
  domainType: "web",
  page: 0,
  ...o,
});
const owned = (doc: IndexDocument, owner: { accountId: string }): IndexDocument => ({ ...doc, ownerAccountId: owner.accountId });

describe.each(driverCases(["pglite", "pg"]))("local index ownership on $driver", ({ open }) => {
  const ix = indexedDatabase(open, clock);
  const urls = async (viewer: { accountId: string }, text: string, o: Partial<SearchQuery> = {}) =>
    (await ix.index.provider.search(query(text, o), signal, viewer)).hits.map((h) => `${h.url} ${h.title}`);

  it("keeps a copy per owner of one URL; each account sees its own copy, the others the global one", async () => {
    const url = "https://shared.example/page";
    const result = await ix.index.writer.upsert([
      { url, title: "Global", text: "lapwing common words" },
      owned({ url, title: "Mine A", text: "lapwing alphaonly common words" }, A),
      owned({ url, title: "Mine B", text: "lapwing bravoonly common words" }, B),
    ]);
    expect(result).toEqual({ inserted: 3, updated: 0, unchanged: 0, rejected: [] });
    await expectConsistent(ix.database.db);
    const [df] = await rows<{ df: number }>(ix.database.db, sql`select df from search_terms where term = 'lapw'`);
    expect(df?.df).toBe(3);

    expect(await urls(A, "lapwing")).toEqual([`${url} Mine A`]);
    expect(await urls(B, "lapwing")).toEqual([`${url} Mine B`]);
    expect(await urls(C, "lapwing")).toEqual([`${url} Global`]);
    expect(await urls(A, "bravoonly")).toEqual([]);
    expect(await urls(B, "alphaonly")).toEqual([]);
    expect(await urls(C, "alphaonly bravoonly")).toEqual([]);

    // Re-upserting one copy touches that copy only.
    expect(
      await ix.index.writer.upsert([owned({ url, title: "Mine A", text: "lapwing alphaonly common words" }, A)]),
    ).toMatchObject({
      unchanged: 1,
    });
    expect(await ix.index.writer.upsert([owned({ url, title: "Mine A again", text: "lapwing alphanew" }, A)])).toMatchObject({
      updated: 1,
      inserted: 0,
    });
    await expectConsistent(ix.database.db);
    expect(await urls(A, "alphaonly")).toEqual([]);
    expect(await urls(A, "alphanew")).toEqual([`${url} Mine A again`]);
    expect(await urls(B, "lapwing")).toEqual([`${url} Mine B`]);
    expect(await urls(C, "lapwing")).toEqual([`${url} Global`]);
    expect(await ix.index.writer.count()).toBe(3);

    // The operator's removal takes every copy.
    expect(await ix.index.writer.remove(url)).toBe(true);
    expect(await ix.index.writer.count()).toBe(0);
    await expectConsistent(ix.database.db);
    for (const v of [A, B, C]) expect(await urls(v, "lapwing")).toEqual([]);
  });

  it("scores with collection-wide statistics: every copy of every account is a document", async () => {
    const docs: IndexDocument[] = [
      { url: "https://score.example/g1", title: "Plover notes", text: "plover plover shoreline" },
      { url: "https://score.example/g2", title: "Shoreline", text: "tides and a plover" },
      owned({ url: "https://score.example/a1", title: "Plover log", text: "one plover today" }, A),
      owned({ url: "https://score.example/g1", title: "Plover notes", text: "plover plover shoreline private" }, B),
      owned({ url: "https://score.example/b2", title: "Waders", text: "plover and sandpiper" }, B),
    ];
    await ix.index.writer.upsert(docs);
    await expectConsistent(ix.database.db);
    const key = (d: IndexDocument) => `${d.ownerAccountId ?? ""} ${d.url}`;
    const expected = referenceScores(docs, "plover shoreline", { key });
    for (const viewer of [A, B, C]) {
      const got = await bm25Page(ix.database.db, query("plover shoreline"), viewer, clock, DEFAULT_BM25, 100);
      const visible = docs.filter(
        (d) =>
          d.ownerAccountId === viewer.accountId ||
          (d.ownerAccountId === undefined && !docs.some((o) => o.ownerAccountId === viewer.accountId && o.url === d.url)),
      );
      expect(got.map((r) => r.url).sort()).toEqual(visible.map((d) => d.url).sort());
      for (const d of visible) {
        const row = got.find((r) => r.url === d.url);
        expect(Number(row?.score)).toBeCloseTo(expected.get(key(d)) as number, 4);
      }
    }
    for (const d of docs) await ix.index.writer.remove(d.url);
    await expectConsistent(ix.database.db);
  });

  it("other accounts' pages never take an account's places under the per-term cap, filtered or not", async () => {
    // Another account holds 20 strong web and 20 strong news postings for "crowded"; A and the
    // global index hold weaker ones. With a cap of 3 the best 3 postings overall are all X's.
    const X = { accountId: "acct_owner_x" };
    const strong = Array.from({ length: 20 }, (_, i) =>
      owned(
        {
          url: `https://crowd.example/${i}`,
          title: "crowded crowded",
          text: "crowded crowded crowded",
          ...(i % 2 ? { type: "news" as const, publishedDate: "2026-06-01" } : {}),
        },
        X,
      ),
    );
    const weak: IndexDocument[] = [
      owned({ url: "https://mine.example/p", title: "Mine", text: `crowded ${"filler ".repeat(30)}` }, A),
      owned(
        {
          url: "https://mine.example/n",
          title: "Mine news",
          text: `crowded ${"filler ".repeat(30)}`,
          type: "news",
          publishedDate: "2026-06-02",
        },
        A,
      ),
      { url: "https://public.example/p", title: "Public", text: `crowded ${"filler ".repeat(40)}` },
    ];
    await ix.index.writer.upsert([...strong, ...weak]);
    const cap = { ...DEFAULT_BM25, maxPostingsPerTerm: 3 };
    const seen = async (viewer: { accountId: string }, o: Partial<SearchQuery> = {}) =>
      (await bm25Page(ix.database.db, query("crowded", o), viewer, clock, cap)).map((r) => r.url);
    expect(await seen(A)).toEqual(["https://mine.example/p", "https://public.example/p"]);
    expect(await seen(A, { domainType: "news" })).toEqual(["https://mine.example/n"]);
    expect(await seen(A, { includeDomains: ["public.example"] })).toEqual(["https://public.example/p"]);
    expect(await seen(C)).toEqual(["https://public.example/p"]);
    // X still gets its own best first.
    expect((await seen(X, { domainType: "news" })).slice(0, 3).every((u) => u.startsWith("https://crowd.example/"))).toBe(true);
    // Capped and uncapped agree for A: nothing of A's was cut.
    const exact = await bm25Page(ix.database.db, query("crowded"), A, clock, DEFAULT_BM25);
    const capped = await bm25Page(ix.database.db, query("crowded"), A, clock, cap);
    expect(capped.map((r) => [r.url, r.score])).toEqual(exact.map((r) => [r.url, r.score]));
    await expectConsistent(ix.database.db);
  });

  it("a global copy the account replaces with its own takes no place under the per-term cap", async () => {
    // Three strong global pages of "plover"; account D holds its own (weak) copy of each, and a
    // fourth, weaker global page exists. With a cap of 3, the three strong global postings would
    // fill the cap and be dropped as replaced, hiding the fourth page from D; another account (E)
    // sees the three strong global copies.
    const D = { accountId: "acct_owner_d" };
    const E = { accountId: "acct_owner_e" };
    const strongUrls = [0, 1, 2].map((i) => `https://plover.example/${i}`);
    await ix.index.writer.upsert([
      ...strongUrls.map((url) => ({ url, title: "plover plover", text: "plover plover plover" })),
      ...strongUrls.map((url) => owned({ url, title: "Mine", text: `plover ${"filler ".repeat(40)}` }, D)),
      { url: "https://plover.example/weak", title: "Weak", text: `plover ${"filler ".repeat(20)}` },
    ]);
    const cap = { ...DEFAULT_BM25, maxPostingsPerTerm: 3 };
    const seen = async (viewer: { accountId: string }) =>
      (await bm25Page(ix.database.db, query("plover"), viewer, clock, cap)).map((r) => r.url).sort();
    expect(await seen(D)).toEqual([...strongUrls, "https://plover.example/weak"].sort());
    expect(await seen(E)).toEqual(strongUrls);
    // The capped page is the exact one for D.
    const exact = await bm25Page(ix.database.db, query("plover"), D, clock, DEFAULT_BM25);
    const capped = await bm25Page(ix.database.db, query("plover"), D, clock, cap);
    expect(capped.map((r) => [r.url, r.score])).toEqual(exact.map((r) => [r.url, r.score]));
    await expectConsistent(ix.database.db);
  });

  it("refuses to search without the searching account", async () => {
    await expect(ix.index.provider.search(query("crowded"), signal)).rejects.toThrow(/searching account/);
    await expect(bm25Page(ix.database.db, query("crowded"), { accountId: "" }, clock, DEFAULT_BM25)).rejects.toThrow();
  });
});
