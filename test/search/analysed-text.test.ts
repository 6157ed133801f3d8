import { describe, expect, it } from "vitest";
import { analyze, tokenize } from "../../functions/search/analyze.ts";
import {
  ANALYSED_CHARS,
  analysedText,
  analyseText,
  termFrequencies,
  VECTOR_CHARS,
} from "../../functions/search/local/analysed-text.ts";
import { DEFAULT_REGULARISATION } from "../../functions/search/local/regularise.ts";
import { FEATURES, type RerankCandidate, rerankFeatures } from "../../functions/search/local/rerank.ts";

// A candidate's analysis (analysed-text.ts): kept per document while its text stays the same, and
// the distinct words the reranker's 5-gram and word-start features are cut from.

const f = (row: number[] | undefined, name: (typeof FEATURES)[number]) => row?.[FEATURES.indexOf(name)] as number;

/**
 * The 5-gram and word-start features as the reranker first computed them, word by word: each of
 * the candidate's distinct words cut into its 5-grams (a shorter word whole) and its first five
 * letters, looked up among the query's.
 */
function referenceGramFeatures(query: string, cands: RerankCandidate[], idf: (t: string) => number) {
  const gramsOf = (w: string) => (w.length <= 5 ? [w] : [...Array(w.length - 4).keys()].map((k) => w.slice(k, k + 5)));
  const terms = new Map(analyze(query).map((t) => [t, idf(t)]));
  const prefixes: { prefix: string; idf: number }[] = [];
  const queryGrams = new Set<string>();
  for (const word of tokenize(query)) {
    const term = analyze(word)[0];
    if (term === undefined) continue;
    prefixes.push({ prefix: word.slice(0, 5), idf: terms.get(term) ?? 0 });
    for (const g of gramsOf(word)) queryGrams.add(g);
  }
  const held = cands.map((c) => {
    const words = new Set([...tokenize(c.title), ...c.body.split(/(?<=[.!?])\s+/).flatMap((s) => tokenize(s))]);
    const grams = new Set<string>();
    const starts = new Set<string>();
    for (const w of words) {
      for (const g of gramsOf(w)) if (queryGrams.has(g)) grams.add(g);
      starts.add(w.slice(0, 5));
    }
    return { grams, starts };
  });
  const holders = (g: string) => held.filter((h) => h.grams.has(g)).length;
  return held.map((h) => {
    let gramHeld = 0;
    let gramAll = 0;
    for (const g of queryGrams) {
      const w = Math.log((cands.length + 1) / (holders(g) + 0.5));
      gramAll += w;
      if (h.grams.has(g)) gramHeld += w;
    }
    const all = prefixes.reduce((s, p) => s + p.idf, 0);
    const prefixHeld = prefixes.filter((p) => h.starts.has(p.prefix)).reduce((s, p) => s + p.idf, 0);
    return { gram5: gramAll > 0 ? gramHeld / gramAll : 0, prefix: all > 0 ? prefixHeld / all : 0 };
  });
}

const cand = (id: string, ranked: number, title: string, body: string): RerankCandidate => {
  const text = analyseText(title, body, "en");
  const vector = new Map([...termFrequencies(text, 3)].map(([t, n]) => [t, 1 + Math.log(n)]));
  return { id, ranked, vector, title, body, language: "en", text };
};

describe("the reranker's 5-gram and word-start features over a candidate's distinct words", () => {
  // Short query words held only as whole words ("risk" in "asterisk" or "risky" is not held),
  // long ones by any 5-gram inside a word (never across two words), starts at a word's start only.
  const query = "Risk of IL-6 hyperinflammation in 東京都 cohorts, 2019 data";
  const cands = [
    cand("a", 5, "Asterisk and risky notes", "Flammable inflammation of 2019x. The hyper cohort. 京都 nothing."),
    cand("b", 4, "Risk", "il 6 hyperinflammation cohorts 東京都 2019 data."),
    cand("c", 3, "", "ri sk hyperin flammation. Datasets and cohortsx. 東 京."),
    cand("d", 2, "Hyperinflammatory", "interleukin riskless codata"),
    cand("e", 1, "", ""),
  ];
  const idf = (t: string) => 1 + t.length / 10;

  it("are what cutting every word into its 5-grams and start gives, candidate by candidate", () => {
    const got = rerankFeatures(query, cands, idf, DEFAULT_REGULARISATION);
    const want = referenceGramFeatures(query, cands, idf);
    expect(got.map((row) => ({ gram5: f(row, "gram5"), prefix: f(row, "prefix") }))).toEqual(want);
    // Not all equal: the cases differ.
    expect(new Set(want.map((w) => w.gram5)).size).toBeGreaterThan(2);
    expect(f(got[1], "gram5")).toBeCloseTo(1, 9);
    expect(f(got[4], "gram5")).toBe(0);
    expect(f(got[4], "prefix")).toBe(0);
  });

  it("a word and a start are looked up whole: no match across two words or inside a shorter word", () => {
    const text = analyseText("ab cd", "risky asterisk", "en");
    expect(text.wordText).toBe(" ab cd risky asterisk ");
    const x = rerankFeatures("risk bcd", [cand("p", 2, "ab cd", "risky asterisk"), cand("q", 1, "risk", "b cd")], idf, {
      ...DEFAULT_REGULARISATION,
    });
    expect(f(x[0], "gram5")).toBe(0);
    expect(f(x[0], "prefix")).toBe(0);
    expect(f(x[1], "prefix")).toBeGreaterThan(0);
  });
});

describe("analysedText keeps a document's analysis while its text stays the same", () => {
  const id = () => `doc-${Math.random()}`;

  it("gives the kept analysis for the same text, and analyses again when the title, opening or language changes", () => {
    const d = id();
    const first = analysedText(d, "Quokka notes", "Quokkas live on Rottnest. They eat leaves.", "en");
    expect(analysedText(d, "Quokka notes", "Quokkas live on Rottnest. They eat leaves.", "en")).toBe(first);
    expect(first).toEqual(analyseText("Quokka notes", "Quokkas live on Rottnest. They eat leaves.", "en"));

    const newBody = analysedText(d, "Quokka notes", "Wombats dig burrows.", "en");
    expect(newBody).not.toBe(first);
    expect([...termFrequencies(newBody, 1).keys()]).toContain("wombat");
    expect(newBody.sentences.flatMap((r) => r.terms)).not.toContain("quokka");

    const newTitle = analysedText(d, "Wombat notes", "Wombats dig burrows.", "en");
    expect(newTitle.titleTf.has("wombat")).toBe(true);
    const german = analysedText(d, "Wombat notes", "Wombats dig burrows.", "de");
    expect(german).not.toBe(newTitle);
    expect(german).toEqual(analyseText("Wombat notes", "Wombats dig burrows.", "de"));
  });

  it("another database's document with the same id and other text gets its own analysis", () => {
    const d = id();
    const one = analysedText(d, "Plover", "Plovers nest on beaches.", "en");
    const two = analysedText(d, "Lapwing", "Lapwings nest in fields.", "en");
    expect(two.titleTf.has("lapw")).toBe(true);
    expect(one.titleTf.has("lapw")).toBe(false);
    expect(analysedText(d, "Plover", "Plovers nest on beaches.", "en")).not.toBe(two);
  });

  it("a change past the opening keeps the analysis (it reads the opening only)", () => {
    const d = id();
    const opening = `${"Sentence about marsupials. ".repeat(Math.ceil(VECTOR_CHARS / 27))}`.slice(0, VECTOR_CHARS);
    const first = analysedText(d, "Long page", `${opening} tail one`, "en");
    expect(analysedText(d, "Long page", `${opening} a different tail`, "en")).toBe(first);
    expect([...termFrequencies(first, 1).keys()]).not.toContain("tail");
  });

  it("keeps at most ANALYSED_CHARS characters: the least recently used go first", () => {
    const body = "x".repeat(VECTOR_CHARS);
    const oldest = id();
    const recent = id();
    const a = analysedText(oldest, "old", body, "en");
    const b = analysedText(recent, "recent", body, "en");
    const n = Math.ceil(ANALYSED_CHARS / VECTOR_CHARS) - 1;
    for (let i = 0; i < n; i++) {
      analysedText(`filler-${i}`, "", body, "en");
      // `recent` is used all along, so it stays.
      if (i % 100 === 0) expect(analysedText(recent, "recent", body, "en")).toBe(b);
    }
    expect(analysedText(recent, "recent", body, "en")).toBe(b);
    expect(analysedText(oldest, "old", body, "en")).not.toBe(a);
  });
});
