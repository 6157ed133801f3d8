import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IndexDocument } from "../../functions/search/local/document.ts";
import { createLocalIndex } from "../../functions/search/local/local-index.ts";
import { createTestContext, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";

// location and language through GET /search over the local index: they rank, never filter (as
// Brave and SearXNG treat them). The query is analysed in every language the index holds
// documents in, each document scored in its own; spec 4.7's validation is unchanged.

type Params = Record<string, string>;

interface Body {
  results: { url: string; snippet: string }[];
}

async function searchContext(db: TestDatabase, docs: IndexDocument[]): Promise<{ ctx: TestContext; key: string }> {
  const index = createLocalIndex({ db: db.db });
  const result = await index.writer.upsert(docs);
  expect(result.rejected).toEqual([]);
  const ctx = createTestContext(db.db, { search: { providers: [index.provider], cacheTtlMs: 0 } });
  const { key } = await ctx.newKey({ plan: "pro" });
  return { ctx, key };
}

async function urls(ctx: TestContext, key: string, params: Record<string, string>): Promise<string[]> {
  const res = await ctx.call(key, `/search?${new URLSearchParams(params)}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as Body).results.map((r) => r.url);
}

const ENGLISH: IndexDocument[] = [
  {
    url: "https://osprey.example.com/guide",
    title: "Osprey field guide",
    text: "The osprey is a fish-eating bird of prey found near rivers and lakes on every continent but Antarctica.",
    language: "en",
  },
  {
    url: "https://birds.example.org/raptors",
    title: "Raptors of the coast",
    text: "Hawks, eagles and the osprey hunt from the air; the osprey dives feet first for fish.",
    language: "en",
  },
];

describe.each(driverCases(["pglite", "pg"]))("search location and language on $driver", ({ open }) => {
  describe("an English-only index", () => {
    let db: TestDatabase;
    let ctx: TestContext;
    let key: string;
    beforeAll(async () => {
      db = await open();
      ({ ctx, key } = await searchContext(db, ENGLISH));
    }, 60_000);
    afterAll(() => db?.dispose());

    it("answers location=BR and language=fr with its English results", async () => {
      const plain = await urls(ctx, key, { query: "osprey" });
      expect(plain.sort()).toEqual(ENGLISH.map((d) => d.url).sort());
      for (const params of [{ location: "BR" }, { language: "fr" }, { location: "JP", language: "ja" }] as Params[]) {
        expect((await urls(ctx, key, { query: "osprey", ...params })).sort()).toEqual(plain.sort());
      }
      // English stemming still applies to the English pages under another language ("dives" → "dive").
      expect(await urls(ctx, key, { query: "diving", language: "fr" })).toEqual(["https://birds.example.org/raptors"]);
    });

    it("bad values still give spec 4.7's 400", async () => {
      for (const params of [{ location: "ZZ" }, { language: "xx" }, { location: "Brazil" }] as Params[]) {
        const res = await ctx.call(key, `/search?${new URLSearchParams({ query: "osprey", ...params })}`);
        expect(res.status).toBe(400);
        const body = (await res.json()) as { error: { code: string; details: { path: string[] }[] } };
        expect(body.error.code).toBe("INVALID_INPUT");
        expect(body.error.details[0]?.path).toEqual([Object.keys(params)[0]]);
      }
    });
  });

  describe("a mixed index", () => {
    let db: TestDatabase;
    let ctx: TestContext;
    let key: string;
    // Each pair matches its query equally (same terms, frequencies and lengths); the one inserted
    // first has the lower id, which wins a tie, so only the bias can put the other first.
    const docs: IndexDocument[] = [
      ...ENGLISH,
      {
        url: "https://aves.example.com/aguia-pescadora",
        title: "Águia-pescadora",
        text: "A águia-pescadora se alimenta de peixes que captura nos rios e lagos.",
        language: "pt",
      },
      { url: "https://tie.example.com/pt", title: "Zorbix", text: "zorbix 2031", language: "pt" },
      { url: "https://tie.example.com/en", title: "Zorbix", text: "zorbix 2031", language: "en" },
      { url: "https://kwazel.example.com/", title: "Kwazel festival", text: "kwazel festival programme", language: "en" },
      { url: "https://kwazel.example.com.br/", title: "Kwazel festival", text: "kwazel festival programme", language: "en" },
    ];
    beforeAll(async () => {
      db = await open();
      ({ ctx, key } = await searchContext(db, docs));
    }, 60_000);
    afterAll(() => db?.dispose());

    it("finds a Portuguese page with a Portuguese query and no language (or another one)", async () => {
      // Only the Portuguese analysis matches: "pescadoras" → pescador, "alimentam" → aliment.
      for (const params of [{}, { language: "en" }, { location: "US" }, { language: "de" }] as Params[]) {
        const res = await ctx.call(key, `/search?${new URLSearchParams({ query: "pescadoras alimentam capturam", ...params })}`);
        const body = (await res.json()) as Body;
        expect(body.results.map((r) => r.url)).toEqual(["https://aves.example.com/aguia-pescadora"]);
        expect(body.results[0]?.snippet).toContain("alimenta");
      }
    });

    it("with language=pt a Portuguese page ranks above an equally matching English one", async () => {
      expect(await urls(ctx, key, { query: "zorbix" })).toEqual(["https://tie.example.com/en", "https://tie.example.com/pt"]);
      expect(await urls(ctx, key, { query: "zorbix", language: "pt" })).toEqual([
        "https://tie.example.com/pt",
        "https://tie.example.com/en",
      ]);
      // location=BR implies pt (rule 1), which is a bias too.
      expect((await urls(ctx, key, { query: "zorbix", location: "BR" }))[0]).toBe("https://tie.example.com/pt");
    });

    it("with location=BR a .br page ranks above an equal .com page", async () => {
      expect(await urls(ctx, key, { query: "kwazel festival" })).toEqual([
        "https://kwazel.example.com/",
        "https://kwazel.example.com.br/",
      ]);
      for (const params of [{ location: "BR" }, { location: "BR", language: "en" }] as Params[]) {
        expect(await urls(ctx, key, { query: "kwazel festival", ...params })).toEqual([
          "https://kwazel.example.com.br/",
          "https://kwazel.example.com/",
        ]);
      }
    });

    it("results are the matching pages whatever the bias, each once", async () => {
      // Both English pages match "osprey"; the Portuguese page does not, whatever the language.
      const found = await urls(ctx, key, { query: "osprey fish", language: "pt", location: "BR" });
      expect(found.sort()).toEqual(ENGLISH.map((d) => d.url).sort());
      const mixed = await urls(ctx, key, { query: "osprey zorbix", language: "pt" });
      expect(new Set(mixed).size).toBe(mixed.length);
      expect(mixed).toContain("https://tie.example.com/en");
    });
  });
});
