import { describe, expect, it } from "vitest";
import { analyze, analyzeWithPositions, detectLanguage, tokenize } from "../../functions/search/analyze.ts";
import { normalizeUrl } from "../../functions/search/local/prepare.ts";
import { makeSnippet } from "../../functions/search/snippet.ts";

describe("analyzer", () => {
  it("tokenizes Unicode letters and digits, splits hyphens and drops possessive 's", () => {
    expect(tokenize("Über-große COVID-19 cell's naïve 3.5mg")).toEqual([
      "über",
      "große",
      "covid",
      "19",
      "cell",
      "naïve",
      "3",
      "5mg",
    ]);
  });

  it("English: Lucene stop-words and Porter stems", () => {
    expect(analyze("The cats are running into the gardens")).toEqual(["cat", "run", "garden"]);
    expect(analyze("Relational databases", "en-GB")).toEqual(["relat", "databas"]);
  });

  it("French and German: stopwords-iso and Snowball", () => {
    expect(analyze("Les chats mangeaient des souris", "fr")).toEqual(["chat", "mang", "sour"]);
    expect(analyze("Die Katzen und die Häuser", "de")).toEqual(["katz", "haus"]);
  });

  it("unknown languages: lower-case, no stemming, no stop-words", () => {
    expect(analyze("Running Cats", "xx")).toEqual(["running", "cats"]);
  });

  it("keeps token positions across stop-words", () => {
    expect(analyzeWithPositions("the cat of the house")).toEqual([
      { term: "cat", position: 1 },
      { term: "hous", position: 4 },
    ]);
  });

  it("detectLanguage: the declared language, else the detected one, else en", () => {
    const french = "Le chat est sur la table et il dort dans la maison pendant que les enfants sont à l'école avec leurs amis.";
    expect(detectLanguage("bonjour", "fr-FR")).toBe("fr");
    expect(detectLanguage(french, "en")).toBe("en"); // a declaration wins
    expect(detectLanguage(french)).toBe("fr");
    expect(detectLanguage(french, "123")).toBe("fr"); // not a language code
    expect(detectLanguage("hello")).toBe("en"); // too little text to tell
  });

  it("Chinese, Japanese and Korean runs become overlapping bigrams; other tokens stay whole", () => {
    expect(tokenize("東京都に住む")).toEqual(["東京", "京都", "都に", "に住", "住む"]);
    expect(tokenize("iPhone发布会 2026")).toEqual(["iphone", "发布", "布会", "2026"]);
    expect(tokenize("한국어 검색")).toEqual(["한국", "국어", "검색"]);
    expect(tokenize("猫")).toEqual(["猫"]);
    expect(analyze("北京大学", "zh")).toEqual(["北京", "京大", "大学"]);
  });
});

describe("URL normalisation", () => {
  it("lower-cases scheme and host, drops fragment and default port, keeps path and query", () => {
    expect(normalizeUrl("HTTPS://Example.COM:443/A/b?Q=1#frag").toString()).toBe("https://example.com/A/b?Q=1");
    expect(normalizeUrl("http://example.com:8080/x").toString()).toBe("http://example.com:8080/x");
    expect(() => normalizeUrl("ftp://example.com/")).toThrow();
  });
});

describe("snippets", () => {
  const body = `${"Filler words about nothing in particular. ".repeat(20)}Mitochondrial biogenesis drives muscle adaptation in endurance athletes. ${"More filler text follows here. ".repeat(20)}`;

  it("picks the window with the query terms, cut at word boundaries with ellipses", () => {
    const s = makeSnippet(body, "muscle mitochondria", "en", 200);
    expect(s).toContain("Mitochondrial biogenesis drives muscle");
    expect(s.startsWith("…")).toBe(true);
    expect(s.endsWith("…")).toBe(true);
    expect(s.length).toBeLessThanOrEqual(202);
    expect(s.slice(1, -1)).toBe(s.slice(1, -1).trim());
  });

  it("short bodies whole; no match: the start", () => {
    expect(makeSnippet("A short text.", "query")).toBe("A short text.");
    expect(makeSnippet(body, "zebra", "en", 100).startsWith("Filler words")).toBe(true);
  });
});
