import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import puppeteer, { type Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_ARGS } from "../../containers/browser/chromium-process.ts";
import { createTestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { CHROME, chromeAvailable } from "../helpers/test-session.ts";

/**
 * /docs works with no internet: the page names no external URL, its script comes from the installed
 * @scalar/api-reference (cacheable, the right content type), and real Chromium, with every request
 * to another host than 127.0.0.1 aborted, renders the reference.
 */

describe.skipIf(!chromeAvailable("docs offline")).each(driverCases(["pglite"]))("/docs offline on $driver", ({ open }) => {
  let database: TestDatabase;
  let server: ReturnType<typeof serve>;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    database = await open();
    const ctx = createTestContext(database.db);
    server = serve({ fetch: ctx.app.fetch, hostname: "127.0.0.1", port: 0 });
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await puppeteer.launch({ executablePath: CHROME, headless: true, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await database?.dispose();
  });

  it("the page links only to this server, and its script is served with a JS type and long caching", async () => {
    const page = await (await fetch(`${base}/docs`)).text();
    expect(page).not.toMatch(/https?:\/\//);
    const src = /<script src="([^"]+)"/.exec(page)?.[1];
    expect(src).toMatch(/^\/docs\/assets\/scalar-api-reference-[\d.]+\.js$/);
    const plain = await fetch(`${base}${src}`, { headers: { "accept-encoding": "identity" } });
    expect(plain.status).toBe(200);
    expect(plain.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(plain.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(plain.headers.get("x-content-type-options")).toBe("nosniff");
    expect(plain.headers.get("x-request-id")).toMatch(/^req_/);
    const text = await plain.text();
    expect(text).toContain("createApiReference");
    // fetch() unzips: the gzipped answer is the same script.
    const gz = await fetch(`${base}${src}`, { headers: { "accept-encoding": "gzip" } });
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    expect((await gz.text()).length).toBe(text.length);
    // Nothing else is served under the assets prefix.
    expect((await fetch(`${base}/docs/assets/other.js`)).status).toBe(404);
  });

  it("renders the reference in Chromium with every other host unreachable", async () => {
    const context = await browser.createBrowserContext();
    try {
      const page = await context.newPage();
      const aborted: string[] = [];
      await page.setRequestInterception(true);
      page.on("request", (req) => {
        const host = new URL(req.url()).hostname;
        if (req.url().startsWith("data:") || req.url().startsWith("blob:") || host === "127.0.0.1") void req.continue();
        else {
          aborted.push(req.url());
          void req.abort("internetdisconnected");
        }
      });
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      await page.goto(`${base}/docs`, { waitUntil: "load" });
      // An operation of the OpenAPI document renders, with its summary, once scrolled to (Scalar
      // renders operations as they come into view).
      await page.waitForFunction(
        () => {
          window.scrollBy(0, window.innerHeight);
          return document.body.textContent?.includes("Start a run and return its id at once") ?? false;
        },
        { timeout: 20_000, polling: 250 },
      );
      // help_url's target (schema/runs.ts runErrorHelpUrl): the page opens at the "Run errors" section.
      await page.goto(`${base}/docs#description/run-errors`, { waitUntil: "load" });
      const section = await page.waitForSelector('[id$="description/run-errors"]', { timeout: 20_000 });
      await page.waitForFunction(
        (el) => {
          const r = (el as Element).getBoundingClientRect();
          return r.top >= 0 && r.top < window.innerHeight && (document.body.textContent?.includes("Run errors") ?? false);
        },
        { timeout: 10_000 },
        section,
      );
      expect(errors).toEqual([]);
      expect(aborted).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
