/**
 * The bot-wall detector against real challenge pages (each must stay flagged) and against every
 * readable page of the extraction benchmarks in ../shared/bench (each flagged one would be a lost
 * page). The benchmark sweep is skipped where the data is absent.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { isBotChallenge } from "../../functions/fetch/bot-challenge.ts";
import { WALLS } from "./bot-walls.ts";

const DATA = resolve(dirname(fileURLToPath(import.meta.url)), "../../../shared/bench/extraction");

describe("isBotChallenge on challenge pages", () => {
  it.each(WALLS.map((w) => [w.name, w] as const))("flags %s", (_name, w) => {
    expect(isBotChallenge(w.status, w.headers, w.html)).toBe(true);
  });
});

describe("isBotChallenge on guarded but readable pages", () => {
  const article = `<h1>Spring planting</h1>${"<p>Seeds go in when the soil is warm enough to work, usually after the last frost. </p>".repeat(30)}`;
  const page = (head: string, body: string) =>
    `<!doctype html><html><head><title>Spring planting</title>${head}</head><body>${body}</body></html>`;
  it.each([
    [
      "Cloudflare's bot-management beacon",
      page(
        "",
        `${article}<script>(function(){function c(){var b=a.contentDocument||a.contentWindow.document;if(b){var d=b.createElement('script');d.innerHTML="window.__CF$cv$params={r:'8e2b7c1d9a3f4e5b',t:'MTcwMDAwMDAwMA=='};var a=document.createElement('script');a.nonce='';a.src='/cdn-cgi/challenge-platform/scripts/jsd/main.js';document.getElementsByTagName('head')[0].appendChild(a);";b.getElementsByTagName('head')[0].appendChild(d)}}})();</script>`,
      ),
    ],
    [
      "PerimeterX's sensor and its pre-styled captcha modal",
      page(
        "<style>#px-captcha-modal{z-index:9999999999!important}</style><script>window._pxAppId='PXa1b2c3d4';window._pxJsClientSrc='//client.perimeterx.net/PXa1b2c3d4/main.min.js';</script>",
        article,
      ),
    ],
    ["DataDome's tag", page('<script src="https://js.datadome.co/tags.js" async></script>', article)],
    [
      "a short contact page with a reCAPTCHA",
      page(
        "",
        `<h1>Contact us</h1><p>Write to us with questions about orders, returns or our shop in town; we answer within two working days. For press enquiries use the form below and choose "press" as the subject.</p><form><input name="email"><textarea name="msg"></textarea><div class="g-recaptcha" data-sitekey="x"></div><button>Send</button></form>`,
      ),
    ],
    [
      "an article about bot walls",
      page(
        "",
        `${article}<p>Sites answer scrapers with "Checking your browser" pages or ask visitors to verify you are human.</p>`,
      ),
    ],
  ])("does not flag %s", (_name, html) => {
    expect(isBotChallenge(200, {}, html)).toBe(false);
  });
});

const readGz = (p: string) => gunzipSync(readFileSync(p)).toString("utf8");

function benchPages(): { id: string; html: string }[] {
  const pages: { id: string; html: string }[] = [];
  const wcxb = join(DATA, "wcxb-dev/dev/html");
  for (const f of readdirSync(wcxb)) pages.push({ id: `wcxb ${f}`, html: readGz(join(wcxb, f)) });
  const aeb = join(DATA, "scrapinghub-aeb/html");
  for (const f of readdirSync(aeb)) pages.push({ id: `aeb ${f}`, html: readGz(join(aeb, f)) });
  const tmp = mkdtempSync(join(tmpdir(), "osprey-botwall-"));
  try {
    execFileSync("tar", ["-xzf", join(DATA, "readability-testpages/readability-test-pages.tar.gz"), "-C", tmp]);
    const root = join(tmp, "test/test-pages");
    for (const name of readdirSync(root)) {
      const file = join(root, name, "source.html");
      if (existsSync(file)) pages.push({ id: `readability ${name}`, html: readFileSync(file, "utf8") });
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return pages;
}

describe.skipIf(!existsSync(join(DATA, "wcxb-dev/dev/html")))("isBotChallenge on every extraction benchmark page", () => {
  it("flags none of the WCXB dev, AEB and Readability test pages", { timeout: 300_000 }, () => {
    const pages = benchPages();
    expect(pages.length).toBeGreaterThan(1497 + 181);
    const flagged = pages.filter((p) => isBotChallenge(200, {}, p.html)).map((p) => p.id);
    expect(flagged).toEqual([]);
  });
});

describe("isBotChallenge on markup whose regex passes were quadratic", () => {
  // The visible-text count stripped hidden elements and tags with regexes that read to the end of
  // the page from each unclosed one: up to about 8 s within the 200,000 characters read. One pass now
  // (lib/markup.ts), with the same verdicts.
  it("a page with a challenge's words and 90,000 unclosed '<'s or <script>s is judged by its text", () => {
    const words = "<p>Please verify you are human to continue.</p>";
    // Nothing closes the run: 180,000 characters of text, so a page with something to read.
    expect(isBotChallenge(200, {}, `<html><body>${words}${"< ".repeat(90_000)}`)).toBe(false);
    // Closed by the </body> after it: one long tag, so little to read: the challenge.
    expect(isBotChallenge(200, {}, `<html><body>${words}${"< ".repeat(90_000)}</body></html>`)).toBe(true);
    expect(isBotChallenge(200, {}, `<html><body>${words}${"<script>x".repeat(20_000)}</body></html>`)).toBe(false);
    expect(isBotChallenge(200, {}, `<html><body>${words}<script>${"x".repeat(5000)}</script></body></html>`)).toBe(true);
  });
});
