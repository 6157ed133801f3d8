import { beforeAll, describe, expect, it } from "vitest";
import type { IndexDocument } from "../../functions/search/local/document.ts";
import { createLocalIndex } from "../../functions/search/local/local-index.ts";
import { bm25Page, DEFAULT_BM25 } from "../../functions/search/local/ranking.ts";
import {
  type Candidate,
  DEFAULT_REGULARISATION,
  regularisedOrder,
  regularisedPage,
} from "../../functions/search/local/regularise.ts";
import type { SearchQuery } from "../../functions/search/types.ts";
import { driverCases } from "../helpers/databases.ts";
import { indexedDatabase } from "../helpers/search-index.ts";
import { searchQuery } from "../helpers/search-upstreams.ts";

// The first pages are reordered by the candidates' likeness (regularise.ts): a document whose
// nearest candidates score well rises over one that matches the query's words inside a text about
// something else.
const clock = { now: () => new Date("2026-06-15T12:00:00Z") };
const signal = new AbortController().signal;
const A = { accountId: "acct_reg_a" };
const B = { accountId: "acct_reg_b" };
const query = (text: string, o: Partial<SearchQuery> = {}): SearchQuery => searchQuery({ text, ...o });

const vec = (o: Record<string, number>) => new Map(Object.entries(o));

describe("regularisedOrder", () => {
  const p = DEFAULT_REGULARISATION;
  // x scores best but is like the two weak candidates; a and b are like each other.
  const cands: Candidate[] = [
    { id: "x", ranked: 10, vector: vec({ quokka: 1, tomato: 3, compost: 3 }) },
    { id: "a", ranked: 9, vector: vec({ quokka: 1, island: 3, marsupial: 3 }) },
    { id: "b", ranked: 8.5, vector: vec({ quokka: 1, island: 3, marsupial: 2 }) },
    { id: "g1", ranked: 2, vector: vec({ tomato: 3, compost: 2 }) },
    { id: "g2", ranked: 1.5, vector: vec({ tomato: 2, compost: 3 }) },
  ];

  it("a candidate like other strong candidates overtakes one like weak ones", () => {
    expect(regularisedOrder(cands, p)).toEqual(["a", "b", "x", "g1", "g2"]);
  });

  it("weight 0, no neighbours, one candidate or no positive score keep the order given", () => {
    const ids = cands.map((c) => c.id);
    expect(regularisedOrder(cands, { ...p, weight: 0 })).toEqual(ids);
    expect(regularisedOrder(cands, { ...p, weight: -1 })).toEqual(ids);
    expect(regularisedOrder(cands, { ...p, neighbours: 0 })).toEqual(ids);
    expect(regularisedOrder(cands.slice(0, 1), p)).toEqual(["x"]);
    expect(regularisedOrder([], p)).toEqual([]);
    const zero = cands.map((c) => ({ ...c, ranked: 0 }));
    expect(regularisedOrder(zero, p)).toEqual(ids);
  });

  it("candidates without a vector, or sharing no term, keep their own share and the given order among equals", () => {
    const bare = cands.map((c) => ({ ...c, vector: new Map<string, number>() }));
    expect(regularisedOrder(bare, p)).toEqual(cands.map((c) => c.id));
    const tied: Candidate[] = [
      { id: "p", ranked: 1, vector: vec({ alpha: 1 }) },
      { id: "q", ranked: 1, vector: vec({ beta: 1 }) },
    ];
    expect(regularisedOrder(tied, p)).toEqual(["p", "q"]);
  });
});

// Query "quokka habitat": X matches both words in a gardening text like the G pages (which match
// "habitat" only); Q1..Q3, a little longer, are about quokkas and like each other.
const garden = "tomato compost soil seeds mulch watering beds";
const island = "island marsupial rottnest wildlife burrow colony";
const DOCS: IndexDocument[] = [
  { url: "https://x.example/1", title: "Notes", text: `quokka habitat ${garden}`, language: "en" },
  ...[1, 2, 3].map((i) => ({
    url: `https://q.example/${i}`,
    title: "Notes",
    text: `quokka habitat ${island} ${"survey ".repeat(i)}`,
    language: "en",
  })),
  ...[1, 2, 3, 4].map((i) => ({
    url: `https://g.example/${i}`,
    title: "Notes",
    text: `habitat ${garden} ${"plot ".repeat(i)}`,
    language: "en",
  })),
];

describe.each(driverCases(["pglite", "pg"]))("regularised pages on $driver", ({ open }) => {
  const ix = indexedDatabase(open, clock, DOCS);
  beforeAll(async () => {
    // A page only account A may see, about quokkas like the Q pages.
    await ix.index.writer.upsert([
      {
        url: "https://private.example/q",
        title: "Notes",
        text: `quokka habitat ${island}`,
        language: "en",
        ownerAccountId: A.accountId,
      },
    ]);
  }, 60_000);

  const urls = async (o: Partial<SearchQuery>, viewer = B, text = "quokka habitat") =>
    (await ix.index.provider.search(query(text, o), signal, viewer)).hits.map((h) => h.url);

  it("BM25 ranks the gardening page first; the regularised page puts the quokka pages above it", async () => {
    const bm25 = (await bm25Page(ix.database.db, query("quokka habitat"), B, clock, DEFAULT_BM25)).map((r) => r.url);
    expect(bm25[0]).toBe("https://x.example/1");
    const got = await urls({});
    expect(got.slice(0, 3).sort()).toEqual(["https://q.example/1", "https://q.example/2", "https://q.example/3"]);
    expect(got[3]).toBe("https://x.example/1");
    // The same set of documents, each once; scores stay BM25's.
    expect([...got].sort()).toEqual([...bm25].sort());
    const rows = await regularisedPage(ix.database.db, query("quokka habitat"), B, clock, DEFAULT_BM25);
    const bm25Rows = await bm25Page(ix.database.db, query("quokka habitat"), B, clock, DEFAULT_BM25);
    for (const r of rows) expect(r.score).toBe(bm25Rows.find((b) => b.url === r.url)?.score);
  });

  it("weight 0 gives BM25's order", async () => {
    const plain = createLocalIndex({ db: ix.database.db, clock, regularisation: { weight: 0 } });
    const got = (await plain.provider.search(query("quokka habitat"), signal, B)).hits.map((h) => h.url);
    const bm25 = (await bm25Page(ix.database.db, query("quokka habitat"), B, clock, DEFAULT_BM25)).map((r) => r.url);
    expect(got).toEqual(bm25);
  });

  it("pages inside and past the candidates hold every match once", async () => {
    // Three candidates: page 0 (ranks 1-10) is past them, so it is BM25's; with 20 it is reordered.
    const small = { candidates: 3, neighbours: 2, weight: 0.3 };
    const bm25 = (await bm25Page(ix.database.db, query("quokka habitat"), B, clock, DEFAULT_BM25)).map((r) => r.url);
    const past = (await regularisedPage(ix.database.db, query("quokka habitat"), B, clock, DEFAULT_BM25, small)).map(
      (r) => r.url,
    );
    expect(past).toEqual(bm25);
    // Page 1 of a query matching 8 documents is empty, reordered or not.
    expect(await regularisedPage(ix.database.db, query("quokka habitat", { page: 1 }), B, clock, DEFAULT_BM25)).toEqual([]);
    expect(await urls({ page: 1 })).toEqual([]);
  });

  it("an account's own page is ranked for it and never shown to another account", async () => {
    const forA = await urls({}, A);
    expect(forA).toContain("https://private.example/q");
    expect(forA.slice(0, 4)).toContain("https://private.example/q");
    const forB = await urls({}, B);
    expect(forB).not.toContain("https://private.example/q");
    expect(forB).toHaveLength(DOCS.length);
  });

  it("filters and bad input answer as BM25 does: nothing for no terms, only what passes", async () => {
    expect(await urls({}, B, "the of")).toEqual([]);
    const kept = await urls({ includeDomains: ["g.example"] });
    expect(kept.sort()).toEqual([1, 2, 3, 4].map((i) => `https://g.example/${i}`));
    await expect(regularisedPage(ix.database.db, query("quokka"), { accountId: "" }, clock, DEFAULT_BM25)).rejects.toThrow();
  });
});
