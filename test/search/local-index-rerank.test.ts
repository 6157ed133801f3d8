import { describe, expect, it } from "vitest";
import type { IndexDocument } from "../../functions/search/local/document.ts";
import { createLocalIndex } from "../../functions/search/local/local-index.ts";
import { bm25Page, DEFAULT_BM25 } from "../../functions/search/local/ranking.ts";
import {
  candidateCosines,
  DEFAULT_REGULARISATION,
  regularisedOrder,
  regularisedPage,
  regularisedValues,
} from "../../functions/search/local/regularise.ts";
import {
  FEATURES,
  type RerankCandidate,
  rerankedOrder,
  rerankedPage,
  rerankFeatures,
  WEIGHTS,
} from "../../functions/search/local/rerank.ts";
import type { SearchQuery } from "../../functions/search/types.ts";
import { driverCases } from "../helpers/databases.ts";
import { indexedDatabase } from "../helpers/search-index.ts";
import { searchQuery } from "../helpers/search-upstreams.ts";

// The first page's candidates reordered by a learned linear model (rerank.ts) over generic features.
const reg = DEFAULT_REGULARISATION;
const IDF: Record<string, number> = { quokka: 3, habitat: 2, burrow: 2.5 };
const idf = (term: string) => IDF[term] ?? 1;
const QUERY = "quokka habitat burrows";

/** A candidate whose vector is its title (x3) and text's terms, (1 + ln tf) · idf, as regularise.ts builds it. */
function cand(id: string, ranked: number, title: string, body: string): RerankCandidate {
  const tf = new Map<string, number>();
  const words = (s: string) => s.toLowerCase().match(/[a-z]+/g) ?? [];
  const stem = (w: string) => (w === "burrows" ? "burrow" : w);
  for (const w of words(title)) tf.set(stem(w), (tf.get(stem(w)) ?? 0) + 3);
  for (const w of words(body)) tf.set(stem(w), (tf.get(stem(w)) ?? 0) + 1);
  const vector = new Map([...tf].map(([t, n]) => [t, (1 + Math.log(n)) * idf(t)]));
  return { id, ranked, vector, title, body, language: "en" };
}

// x: every query word, each in another sentence of a text about gardening, under an unrelated title.
const scattered = (ranked: number) =>
  cand(
    "x",
    ranked,
    "Compost and tomato beds",
    "Tomato compost and seeds. A quokka once crossed the garden. The habitat of moles. Burrows spoil the beds.",
  );
// a: the query's words in its title and in one sentence.
const focused = (ranked: number) =>
  cand("a", ranked, "Quokka habitat and burrows", "The quokka habitat holds burrows on the island. Colonies stay small.");
const other = cand("o", 2, "Rottnest ferries", "Ferries leave the harbour at nine.");

describe("rerankFeatures", () => {
  it("gives each candidate one value per feature, shares in [0, 1], full shares for a candidate holding the query whole", () => {
    const x = rerankFeatures(QUERY, [scattered(10), focused(9.5), other], idf, reg);
    expect(x).toHaveLength(3);
    for (const row of x) {
      expect(row).toHaveLength(FEATURES.length);
      for (const v of row) expect(Number.isFinite(v)).toBe(true);
    }
    const f = (row: number[], name: (typeof FEATURES)[number]) => row[FEATURES.indexOf(name)] as number;
    const [sx, sa, so] = x as [number[], number[], number[]];
    for (const name of ["idfShare", "countShare", "sentShare", "gram5", "prefix", "titleCover"] as const) {
      expect(f(sa, name)).toBeCloseTo(1, 9);
      expect(f(so, name)).toBe(0);
    }
    // x holds every word, never two in one sentence (the best holds quokka: 3 of 7.5) nor in its title.
    expect(f(sx, "idfShare")).toBeCloseTo(1, 9);
    expect(f(sx, "sentShare")).toBeCloseTo(3 / 7.5, 9);
    expect(f(sx, "titleCover")).toBe(0);
    expect(f(sx, "titleCos")).toBe(0);
    expect(f(sa, "titleCos")).toBeGreaterThan(0.9);
    expect(f(sa, "qcos")).toBeGreaterThan(f(sx, "qcos"));
    // The best scoring candidate is first in the regularised order.
    expect(f(sx, "rrank")).toBe(1);
    // a holds both of the query's adjacent pairs next to each other (quokka habitat, habitat [and] burrows).
    expect(f(sa, "pairs")).toBe(1);
    expect(f(sx, "pairs")).toBe(0);
    expect(f(so, "pairs")).toBe(0);
    // a's first sentence holds the query whole; x's ("Tomato compost and seeds.") none of it.
    expect(f(sa, "firstShare")).toBeCloseTo(1, 9);
    expect(f(sx, "firstShare")).toBe(0);
  });

  it("related: a candidate lacking a query term earns its idf share times its likeness to the candidates holding it, up to 0.1", () => {
    // m lacks burrows but reads like a (which holds it); o lacks every word and shares nothing with them.
    const m = cand("m", 9, "Quokka habitat on the island", "The quokka habitat holds colonies on the island.");
    const cands = [scattered(10), focused(9.5), m, other];
    // burrows weighs 0.2 of the query's idf mass 5.2 here, so that the credit stays below the cap (0.1).
    const low = (term: string) => (term === "burrow" ? 0.2 : idf(term));
    const x = rerankFeatures(QUERY, cands, low, reg);
    const related = (i: number) => (x[i] as number[])[FEATURES.indexOf("related")] as number;
    // x and a hold every query term. (o lacks all three, and shares "the" with their holders.)
    expect(related(0)).toBe(0);
    expect(related(1)).toBe(0);
    expect(related(3)).toBeGreaterThan(0);
    // The cosine of m with the sum of x's and a's unit vectors, weighed by burrow's share of the idf mass.
    const c = candidateCosines(cands);
    const n = cands.length;
    const at = (i: number, j: number) => c[i * n + j] as number;
    const expected = ((0.2 / 5.2) * (at(2, 0) + at(2, 1))) / Math.sqrt(at(0, 0) + at(1, 1) + 2 * at(0, 1));
    expect(related(2)).toBeGreaterThan(0.02);
    expect(related(2)).toBeCloseTo(expected, 12);
    // With burrow's own idf (2.5 of 7.5) the credit reaches the cap.
    expect((rerankFeatures(QUERY, cands, idf, reg)[2] as number[])[FEATURES.indexOf("related")]).toBe(0.1);
    // Pairs in either order count: "Burrows: habitat notes" holds habitat–burrow, not quokka–habitat.
    const r = cand("r", 8, "Notes", "Burrows: habitat notes.");
    expect((rerankFeatures(QUERY, [r, other], idf, reg)[0] as number[])[FEATURES.indexOf("pairs")]).toBe(0.5);
  });

  it("candidateCosines gives regularisedValues the cosines it would compute", () => {
    const cands = [scattered(10), focused(9.5), other];
    const c = candidateCosines(cands);
    expect(c[0]).toBe(1);
    expect(c[1]).toBeGreaterThan(0);
    expect(c[1]).toBe(c[3]);
    expect(regularisedValues(cands, reg, c)).toEqual(regularisedValues(cands, reg));
  });
});

describe("rerankedOrder", () => {
  it("a candidate holding the query in its title and one sentence overtakes a slightly better BM25 match that scatters it", () => {
    const cands = [scattered(10), focused(9.5), other];
    expect(regularisedOrder(cands, reg)).toEqual(["x", "a", "o"]);
    expect(rerankedOrder(QUERY, cands, idf, reg)).toEqual(["a", "x", "o"]);
  });

  it("near miss: one missing the query's rarest word falls below one holding it all, whichever scores a little better", () => {
    // n reads almost as a, the one candidate holding burrows (a cosine of about 0.9): related credits
    // it the missing word only up to its cap, less than a's other features give a.
    const near = (ranked: number) =>
      cand("n", ranked, "Quokka habitat and nests", "The quokka habitat holds nests on the island. Colonies stay small.");
    expect(regularisedOrder([near(10), focused(9.5), other], reg)).toEqual(["n", "a", "o"]);
    expect(rerankFeatures(QUERY, [near(10), focused(9.5), other], idf, reg)[0]?.[FEATURES.indexOf("related")]).toBe(0.1);
    expect(rerankedOrder(QUERY, [near(10), focused(9.5), other], idf, reg)).toEqual(["a", "n", "o"]);
    expect(rerankedOrder(QUERY, [focused(10), near(9.5), other], idf, reg)).toEqual(["a", "n", "o"]);
  });

  it("candidates alike but for their score keep BM25's order", () => {
    const twins = [focused(10), { ...focused(9.9), id: "b" }, { ...focused(9.8), id: "c" }];
    expect(rerankedOrder(QUERY, twins, idf, reg)).toEqual(["a", "b", "c"]);
  });

  it("weight 0 gives the regularised order; the model's weights other than reg's scale with it", () => {
    const cands = [scattered(10), focused(9.5), other];
    expect(rerankedOrder(QUERY, cands, idf, reg, { weight: 0 })).toEqual(regularisedOrder(cands, reg));
    expect(rerankedOrder(QUERY, cands, idf, reg, { weight: -1 })).toEqual(regularisedOrder(cands, reg));
    expect(rerankedOrder(QUERY, cands, idf, reg, { weight: Number.NaN })).toEqual(regularisedOrder(cands, reg));
    // Only reg's weight: the regularised order whatever the scale.
    const regOnly = WEIGHTS.map((_, k) => (k === 0 ? 1 : 0));
    expect(rerankedOrder(QUERY, cands, idf, reg, { weight: 5 }, regOnly)).toEqual(["x", "a", "o"]);
  });

  it("bad input never throws: empty text, zero or non-finite scores, no query terms, one or no candidate", () => {
    const bare: RerankCandidate = { id: "e", ranked: 0, vector: new Map(), title: "", body: "", language: "en" };
    const ids = (c: RerankCandidate[]) => c.map((x) => x.id).sort();
    const sets: RerankCandidate[][] = [
      [],
      [bare],
      [bare, { ...bare, id: "f" }],
      [scattered(0), focused(0), other],
      [scattered(Number.NaN), focused(Number.POSITIVE_INFINITY), { ...bare, ranked: -3 }],
      [scattered(10), { ...focused(9), language: "xx" }, bare],
    ];
    for (const cands of sets) {
      for (const q of [QUERY, "", "the of", "ὁ λόγος 東京"]) {
        for (const f of [idf, () => 0, () => Number.NaN]) {
          const got = rerankedOrder(q, cands, f, reg);
          expect([...got].sort()).toEqual(ids(cands));
          for (const row of rerankFeatures(q, cands, f, reg)) for (const v of row) expect(Number.isFinite(v)).toBe(true);
        }
      }
    }
    // Zero scores and no query words anywhere: the order given.
    expect(rerankedOrder("the of", [bare, { ...bare, id: "f" }], idf, reg)).toEqual(["e", "f"]);
  });
});

const clock = { now: () => new Date("2026-06-15T12:00:00Z") };
const signal = new AbortController().signal;
const B = { accountId: "acct_rerank_b" };
const query = (text: string, o: Partial<SearchQuery> = {}): SearchQuery => searchQuery({ text, ...o });
const garden = "tomato compost soil seeds mulch watering beds";
const DOCS: IndexDocument[] = [
  { url: "https://x.example/1", title: "Compost notes", text: `Quokka. Habitat ${garden}.`, language: "en" },
  ...[1, 2, 3].map((i) => ({
    url: `https://q.example/${i}`,
    title: "Quokka habitat",
    text: `The quokka habitat on the island. ${"Survey. ".repeat(i * 3)}`,
    language: "en",
  })),
  ...[1, 2, 3, 4].map((i) => ({
    url: `https://g.example/${i}`,
    title: "Notes",
    text: `habitat ${garden} ${"plot ".repeat(i)}`,
    language: "en",
  })),
];

describe.each(driverCases(["pglite", "pg"]))("reranked pages on $driver", ({ open }) => {
  const ix = indexedDatabase(open, clock, DOCS);

  it("reorders the same documents, each once, with BM25's scores; weight 0 gives the regularised page", async () => {
    const bm25 = await bm25Page(ix.database.db, query("quokka habitat"), B, clock, DEFAULT_BM25);
    const hits = (await ix.index.provider.search(query("quokka habitat"), signal, B)).hits.map((h) => h.url);
    expect([...hits].sort()).toEqual(bm25.map((r) => r.url).sort());
    const rows = await rerankedPage(ix.database.db, query("quokka habitat"), B, clock, DEFAULT_BM25);
    expect(rows.map((r) => r.url)).toEqual(hits);
    for (const r of rows) expect(r.score).toBe(bm25.find((b) => b.url === r.url)?.score);
    // The pages titled by the query rank above the one holding its words in a gardening text.
    expect(hits.indexOf("https://x.example/1")).toBeGreaterThan(2);
    const off = createLocalIndex({ db: ix.database.db, clock, rerank: { weight: 0 } });
    const plain = (await off.provider.search(query("quokka habitat"), signal, B)).hits.map((h) => h.url);
    const regularised = await regularisedPage(ix.database.db, query("quokka habitat"), B, clock, DEFAULT_BM25);
    expect(plain).toEqual(regularised.map((r) => r.url));
  });

  it("past the candidates, without regularisation, or for no terms it answers as the page beneath it", async () => {
    const small = { candidates: 3, neighbours: 2, weight: 0.2 };
    const bm25 = (await bm25Page(ix.database.db, query("quokka habitat"), B, clock, DEFAULT_BM25)).map((r) => r.url);
    const past = await rerankedPage(ix.database.db, query("quokka habitat"), B, clock, DEFAULT_BM25, small);
    expect(past.map((r) => r.url)).toEqual(bm25);
    const noReg = await rerankedPage(ix.database.db, query("quokka habitat"), B, clock, DEFAULT_BM25, { ...small, weight: 0 });
    expect(noReg.map((r) => r.url)).toEqual(bm25);
    expect(await rerankedPage(ix.database.db, query("quokka habitat", { page: 1 }), B, clock, DEFAULT_BM25)).toEqual([]);
    expect(await rerankedPage(ix.database.db, query("the of"), B, clock, DEFAULT_BM25)).toEqual([]);
    await expect(rerankedPage(ix.database.db, query("quokka"), { accountId: "" }, clock, DEFAULT_BM25)).rejects.toThrow();
  });

  // Last: it adds a page. The reranker reorders only the rows the viewer may see, and a private
  // page's text never reaches another account's candidates.
  it("an account's own page is reranked for it and never shown to another account", async () => {
    const A = { accountId: "acct_rerank_a" };
    await ix.index.writer.upsert([
      {
        url: "https://private.example/q",
        title: "Quokka habitat",
        text: "The quokka habitat.",
        language: "en",
        ownerAccountId: A.accountId,
      },
    ]);
    const forA = (await rerankedPage(ix.database.db, query("quokka habitat"), A, clock, DEFAULT_BM25)).map((r) => r.url);
    expect(forA.slice(0, 4)).toContain("https://private.example/q");
    const forB = (await rerankedPage(ix.database.db, query("quokka habitat"), B, clock, DEFAULT_BM25)).map((r) => r.url);
    expect(forB).not.toContain("https://private.example/q");
    expect([...forB].sort()).toEqual(DOCS.map((d) => String(d.url)).sort());
    const hitsB = (await ix.index.provider.search(query("quokka habitat"), signal, B)).hits;
    expect(hitsB.map((h) => h.url)).toEqual(forB);
  });
});
