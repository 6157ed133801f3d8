import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_ELEMENTS } from "../../functions/extract/extract.ts";
import { createExtractorPool } from "../../functions/extract/pool.ts";
import { ExtractionLimitError } from "../../functions/extract/types.ts";
import { extractionFailure } from "../../functions/fetch/url-outcome.ts";
import { createTestContext, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { article, html, type Origin, OSPREY_PARAGRAPHS, startOrigin } from "../helpers/origin.ts";
import { writePdf } from "../pdf/pdf-writer.ts";

interface FetchBody {
  results: { url: string; text: string }[];
  errors: { url: string; error: string; message?: string }[];
}

const LONG = OSPREY_PARAGRAPHS.slice(0, 2);

// Pages the extractor cannot read within its bounds are that URL's error, with a reason, and
// never the request's (spec 7.4): too many elements, a task past the pool's time budget.
describe.each(driverCases(["pglite"]))("fetch: pages past the extractor's bounds on $driver", ({ open }) => {
  let db: TestDatabase;
  let origin: Origin;
  let pooled: TestContext;
  let inline: TestContext;
  let strict: TestContext;
  let keys: { pooled: string; inline: string; strict: string };
  const pool = createExtractorPool({ size: 1 });
  const strictPool = createExtractorPool({ size: 1, taskTimeoutMs: 400 });

  beforeAll(async () => {
    db = await open();
    const brs = `<html><head><title>Breaks</title></head><body><article><p>${LONG.join(" ")}</p>${"<br>".repeat(MAX_ELEMENTS)}</article></body></html>`;
    origin = await startOrigin({
      "/article": html(article("Ospreys", LONG)),
      // Six more start tags than the bound, in the least bytes a tag takes (6 MB).
      "/breaks": html(brs),
      // At the bound's size in bytes but with few tags: read as usual.
      "/long-text": html(article("Long", [`${LONG[0]} `.repeat(30_000)])),
      // Within the bound but past the strict pool's 0.4 s budget.
      "/slow": html(
        article(
          "Slow",
          Array.from({ length: 40_000 }, () => LONG[1] as string),
        ),
      ),
      "/deep": html(`<html><body>${"<div>".repeat(60)}<p class="x">${LONG[0]}</p>${"</div>".repeat(60)}</body></html>`),
      "/paper.pdf": (_req, res) => {
        res.writeHead(200, { "content-type": "application/pdf" });
        res.end(
          writePdf({ pages: Array.from({ length: 300 }, () => Array.from({ length: 150 }, (_, i) => LONG[i % 2] as string)) }),
        );
      },
    });
    const config = { allowPrivateHosts: [{ host: "127.0.0.1", port: origin.port }], fetchNeverExpireHosts: [] };
    pooled = createTestContext(db.db, { fetch: { config, extractor: pool } });
    inline = createTestContext(db.db, { fetch: { config } });
    strict = createTestContext(db.db, { fetch: { config, extractor: strictPool } });
    keys = {
      pooled: (await pooled.newKey({ plan: "pro" })).key,
      inline: (await inline.newKey({ plan: "pro" })).key,
      strict: (await strict.newKey({ plan: "pro" })).key,
    };
  });
  afterAll(async () => {
    await pool.close();
    await strictPool.close();
    await origin.close();
    await db.dispose();
  });

  const post = async (ctx: TestContext, key: string, urls: string[]): Promise<FetchBody> => {
    const res = await ctx.postJson(key, "/fetch", { urls, ttl: 0 });
    expect(res.status).toBe(200);
    return (await res.json()) as FetchBody;
  };

  it("refuses a page of more elements than the bound (counted, not parsed: reading it took 10 s and 1.2 GB) with empty_content and the count, in the pool and inline", async () => {
    for (const [ctx, key] of [
      [pooled, keys.pooled],
      [inline, keys.inline],
    ] as const) {
      const body = await post(ctx, key, [`${origin.url}/breaks`, `${origin.url}/long-text`]);
      expect(body.errors).toEqual([
        {
          url: `${origin.url}/breaks`,
          error: "empty_content",
          message: `The page has 1,500,006 tags, more than the 1,500,000 elements a page may have to be read.`,
        },
      ]);
      expect(body.results.map((r) => r.url)).toEqual([`${origin.url}/long-text`]);
      expect(body.results[0]?.text.length).toBeGreaterThan(3_000_000);
    }
  }, 20_000);

  it("answers a page past the extraction budget with timeout for that URL, and the pool reads the next page", async () => {
    const body = await post(strict, keys.strict, [`${origin.url}/slow`, `${origin.url}/article`]);
    expect(body.errors).toEqual([
      {
        url: `${origin.url}/slow`,
        error: "timeout",
        message: "The page was fetched, but its extraction took longer than 0.4 s.",
      },
    ]);
    expect(body.results[0]?.text).toContain("Ospreys are large raptors");
    const again = await post(strict, keys.strict, [`${origin.url}/article`]);
    expect(again.errors).toEqual([]);
  }, 20_000);

  it("answers a PDF past the extraction budget the same way", async () => {
    const body = await post(strict, keys.strict, [`${origin.url}/paper.pdf`]);
    expect(body.errors).toEqual([
      expect.objectContaining({ url: `${origin.url}/paper.pdf`, error: "timeout", message: expect.stringMatching(/0\.4 s/) }),
    ]);
  }, 20_000);

  it("answers selectors past the page's matching budget with timeout naming the entry, for an exclusion too", async () => {
    const costly = `p:not(section ${"div ".repeat(12)}p)`;
    for (const lists of [{ exclude_selectors: [costly] }, { include_selectors: ["p.x", costly] }]) {
      const res = await inline.postJson(keys.inline, "/fetch", { urls: [`${origin.url}/deep`], ...lists });
      const body = (await res.json()) as FetchBody;
      expect(body.results).toEqual([]);
      expect(body.errors).toEqual([{ url: `${origin.url}/deep`, error: "timeout", message: expect.any(String) }]);
      expect(body.errors[0]?.message).toContain(`The selector ${JSON.stringify(costly)} was too costly to match on this page`);
    }
    const fine = await inline.postJson(keys.inline, "/fetch", { urls: [`${origin.url}/deep`], exclude_selectors: ["nav"] });
    expect(((await fine.json()) as FetchBody).results[0]?.text).toContain("Ospreys are large raptors");
  });

  it("maps a worker out of memory to empty_content, and throws any other error on", () => {
    expect(extractionFailure("u", "f", new ExtractionLimitError("memory", "extraction ran out of memory"))).toEqual({
      ok: false,
      url: "u",
      finalUrl: "f",
      error: "empty_content",
      message: "The page was fetched, but its extraction ran out of memory.",
    });
    expect(() => extractionFailure("u", "f", new Error("a bug"))).toThrow("a bug");
  });
});
