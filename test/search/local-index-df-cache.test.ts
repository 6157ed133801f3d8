import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { IndexDocument } from "../../functions/search/local/document.ts";
import { bm25Page, DEFAULT_BM25, type DocumentRow } from "../../functions/search/local/ranking.ts";
import { candidateVectors } from "../../functions/search/local/regularise.ts";
import type { SearchQuery } from "../../functions/search/types.ts";
import { driverCases } from "../helpers/databases.ts";
import { indexedDatabase, rows } from "../helpers/search-index.ts";
import { searchQuery } from "../helpers/search-upstreams.ts";

// A search keeps the df it has read while the index stays at one version (regularise.ts's
// documentFrequencies; search_stats.generation moves on with every write that changes a df): what
// it computes must be what a search reading every df afresh computes, before and after writes.
const clock = { now: () => new Date("2026-06-15T12:00:00Z") };
const viewer = { accountId: "acct_dfcache" };
const query = (text: string, o: Partial<SearchQuery> = {}): SearchQuery => searchQuery({ text, ...o });

const doc = (i: number, text: string): IndexDocument => ({
  url: `https://df.example/${i}`,
  title: `Page ${i}`,
  text,
  language: "en",
});

// "wombat" is held by two pages at first; "burrow" by one page only, among the "quokka" pages.
const DOCS: IndexDocument[] = [
  doc(1, "quokka wombat island marsupial colony"),
  doc(2, "quokka wombat island marsupial rottnest"),
  doc(3, "quokka island burrow survey"),
  doc(4, "wombat burrow tasmania marsupial"),
  doc(5, "garden tomato compost island"),
];

const QUERIES = ["quokka island", "wombat marsupial", "quokka burrow", "island", "burrow tasmania wombat"];

describe.each(driverCases(["pglite", "pg"]))("the df a search keeps, on $driver", ({ open }) => {
  const ix = indexedDatabase(open, clock, DOCS);

  const generation = async () =>
    Number((await rows<{ g: string }>(ix.database.db, sql`select generation as g from search_stats where id = 1`))[0]?.g);
  const page = (text: string) => bm25Page(ix.database.db, query(text), viewer, clock, DEFAULT_BM25, 30);

  /** candidateVectors with the df kept from earlier queries, and with every df read afresh (no version). */
  async function bothWays(candidates: DocumentRow[], extra: string[]) {
    const kept = await candidateVectors(ix.database.db, candidates, 3, extra);
    const fresh = await candidateVectors(
      ix.database.db,
      candidates.map((r) => ({ ...r, index_version: null })),
      3,
      extra,
    );
    return { kept, fresh };
  }

  function expectSame(a: Awaited<ReturnType<typeof candidateVectors>>, b: Awaited<ReturnType<typeof candidateVectors>>) {
    expect([...a.vectors].map(([id, v]) => [id, [...v]])).toEqual([...b.vectors].map(([id, v]) => [id, [...v]]));
    const terms = new Set([...b.vectors.values()].flatMap((v) => [...v.keys()]));
    for (const t of [...terms, "wombat", "burrow", "quokka", "absentterm"]) expect(a.idf(t), t).toBe(b.idf(t));
  }

  it("every write that changes a df moves the generation on; a write of nothing does not", async () => {
    const g0 = await generation();
    expect(g0).toBeGreaterThan(0);
    await ix.index.writer.upsert([doc(1, DOCS[0]?.text as string)]);
    expect(await generation()).toBe(g0);
    await ix.index.writer.upsert([doc(6, "platypus river")]);
    expect(await generation()).toBe(g0 + 1);
    await ix.index.writer.upsert([doc(6, "platypus river bank")]);
    expect(await generation()).toBe(g0 + 2);
    expect(await ix.index.writer.remove("https://df.example/6")).toBe(true);
    expect(await generation()).toBe(g0 + 3);
    expect(await ix.index.writer.remove("https://df.example/6")).toBe(false);
    expect(await generation()).toBe(g0 + 3);
  });

  it("each row carries the version it was ranked on; a write gives the next search a new one", async () => {
    const before = await page("quokka");
    expect(before.length).toBeGreaterThan(1);
    const version = before[0]?.index_version;
    expect(version).toMatch(/^\d+ \d+ \d+$/);
    for (const r of before) expect(r.index_version).toBe(version);
    await ix.index.writer.upsert([doc(7, "quokka wombat heath")]);
    const after = await page("quokka");
    expect(after[0]?.index_version).not.toBe(version);
    await ix.index.writer.remove("https://df.example/7");
  });

  it("kept df give what a fresh read gives, query after query, and a term kept from another query still counts as rare where one candidate holds it", async () => {
    // Warm: every query's terms are read once, "burrow" among them (shared by pages 3 and 4).
    for (const text of QUERIES) await bothWays(await page(text), [text]);
    for (const text of QUERIES) {
      const { kept, fresh } = await bothWays(await page(text), text.split(" "));
      expectSame(kept, fresh);
    }
    // "quokka": pages 1-3; "burrow" is on page 3 alone among them, so it counts as rare there
    // although its df (2) was read for "quokka burrow".
    const quokka = await page("quokka");
    const { kept } = await bothWays(quokka, ["quokka"]);
    expect(kept.idf("burrow")).toBe(kept.idf("absentterm"));
  });

  it("a write between two searches is seen: the df and document count read after it, not the ones kept", async () => {
    const first = await bothWays(await page("wombat marsupial"), ["wombat", "marsupial"]);
    expectSame(first.kept, first.fresh);
    // Three more wombat pages: its df goes from 2 to 5, the document count from 5 to 8.
    await ix.index.writer.upsert([8, 9, 10].map((i) => doc(i, `wombat marsupial grassland ${i}`)));
    const second = await bothWays(await page("wombat marsupial"), ["wombat", "marsupial"]);
    expectSame(second.kept, second.fresh);
    expect(second.kept.idf("wombat")).toBeLessThan(first.kept.idf("wombat"));
    const [t] = await rows<{ df: number; n: string }>(
      ix.database.db,
      sql`select t.df, s.doc_count as n from search_terms t, search_stats s where t.term = 'wombat' and s.id = 1`,
    );
    const n = Number(t?.n);
    expect(second.kept.idf("wombat")).toBeCloseTo(Math.log(1 + (n - Number(t?.df) + 0.5) / (Number(t?.df) + 0.5)), 12);
    for (const i of [8, 9, 10]) await ix.index.writer.remove(`https://df.example/${i}`);
    const third = await bothWays(await page("wombat marsupial"), ["wombat", "marsupial"]);
    expectSame(third.kept, third.fresh);
    expect(third.kept.idf("wombat")).toBe(first.kept.idf("wombat"));
  });
});
