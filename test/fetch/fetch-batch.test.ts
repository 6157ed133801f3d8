import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { article, html, type Origin, OSPREY_PARAGRAPHS, startOrigin } from "../helpers/origin.ts";

interface FetchBody {
  results: { url: string; final_url: string; title: string | null; text: string }[];
  errors: { url: string; error: string }[];
}

const LONG = OSPREY_PARAGRAPHS.slice(0, 2);

// Batches, redirects and encodings through the API (spec 4.6, 8).
describe.each(driverCases(["pglite"]))("fetch batches on $driver", ({ open }) => {
  let db: TestDatabase;
  let origin: Origin;
  let ctx: TestContext;
  let key: string;
  const waiting: ServerResponse[] = [];

  beforeAll(async () => {
    db = await open();
    origin = await startOrigin({
      // A barrier: no response until 10 requests are in flight. Sequential fetching would hang.
      "/barrier": (_req, res) => {
        waiting.push(res);
        if (waiting.length === 10) {
          for (const [i, r] of waiting.entries()) {
            r.writeHead(200, { "content-type": "text/html" });
            r.end(article(`Page ${i}`, LONG));
          }
        }
      },
      "/r1": (_req, res) => {
        res.writeHead(301, { location: "/r2" });
        res.end();
      },
      "/r2": (_req, res) => {
        res.writeHead(307, { location: "r3?x=1" });
        res.end();
      },
      "/r3": html(article("Landed", LONG)),
      "/cp1252": (_req, res) => {
        res.writeHead(200, { "content-type": "text/html; charset=windows-1252" });
        res.end(
          Buffer.from(
            `<html><body><article><h1>Caf\xe9 cr\xe8me \x80 5</h1><p>${LONG.join(" ")}</p></article></body></html>`,
            "latin1",
          ),
        );
      },
      "/sjis": (_req, res) => {
        res.writeHead(200, { "content-type": "text/html" });
        // <meta charset=shift_jis>, then 日本語 encoded in Shift_JIS.
        const head = Buffer.from('<html><head><meta charset="shift_jis"><title>', "ascii");
        const title = Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea]);
        res.end(
          Buffer.concat([
            head,
            title,
            Buffer.from(`</title></head><body><article><p>${LONG.join(" ")}</p></article></body></html>`, "ascii"),
          ]),
        );
      },
      "/slow": () => {},
    });
    ctx = createTestContext(db.db, {
      fetch: {
        config: { allowPrivateHosts: [{ host: "127.0.0.1", port: origin.port }], fetchNeverExpireHosts: [] },
        batchCeilingMs: 1500,
      },
    });
    ({ key } = await ctx.newKey({ plan: "pro" }));
  });
  afterAll(async () => {
    await origin.close();
    await db.dispose();
  });

  const post = async (body: Record<string, unknown>): Promise<FetchBody> => {
    const res = await ctx.postJson(key, "/fetch", body);
    expect(res.status).toBe(200);
    return (await res.json()) as FetchBody;
  };

  it("fetches the 10 URLs of a batch in parallel", async () => {
    const body = await post({ urls: Array.from({ length: 10 }, (_, i) => `${origin.url}/barrier?n=${i}`), ttl: 0 });
    expect(body.errors).toEqual([]);
    expect(body.results).toHaveLength(10);
  });

  it("follows a redirect chain (absolute and relative Location) and reports final_url", async () => {
    const body = await post({ urls: [`${origin.url}/r1`] });
    expect(body.results[0]).toMatchObject({ url: `${origin.url}/r1`, final_url: `${origin.url}/r3?x=1`, title: "Landed" });
  });

  it("decodes legacy encodings declared by header and by meta", async () => {
    const body = await post({ urls: [`${origin.url}/cp1252`, `${origin.url}/sjis`] });
    const byUrl = Object.fromEntries(body.results.map((r) => [r.url, r]));
    expect(byUrl[`${origin.url}/cp1252`]?.text).toContain("Café crème € 5");
    expect(byUrl[`${origin.url}/sjis`]?.title).toBe("日本語");
  });

  it("answers within the batch ceiling, with timeout for the URLs still running", async () => {
    const body = await post({ urls: [`${origin.url}/slow`, `${origin.url}/r3`] });
    expect(body.errors).toEqual([{ url: `${origin.url}/slow`, error: "timeout", message: expect.any(String) }]);
    expect(body.results.map((r) => r.url)).toEqual([`${origin.url}/r3`]);
  });
});
