import { describe, expect, it } from "vitest";
import { isBotChallenge } from "../../functions/fetch/bot-challenge.ts";
import { cacheKey, isAcceptable, originMaxAge, storableHeaders } from "../../functions/fetch/cache-policy.ts";
import { contentKind } from "../../functions/fetch/content-kind.ts";

const T0 = new Date("2026-11-21T10:00:00Z");
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

describe("originMaxAge", () => {
  it.each([
    [{ "cache-control": "max-age=600" }, 600],
    [{ "cache-control": "public, s-maxage=120, max-age=600" }, 120],
    [{ "cache-control": 'max-age="30"' }, 30],
    [{ "cache-control": "no-store, max-age=600" }, 0],
    [{ "cache-control": "private, max-age=600" }, 0],
    [{ "cache-control": "no-cache" }, 0],
    [{ expires: "Sat, 21 Nov 2026 10:10:00 GMT", date: "Sat, 21 Nov 2026 10:00:00 GMT" }, 600],
    [{ expires: "Sat, 21 Nov 2026 09:00:00 GMT" }, 0],
    [{ expires: "0" }, 0],
    [{ expires: "not a date" }, 0],
    [{}, null],
  ] as [Record<string, string>, number | null][])("%j → %s", (headers, expected) => {
    expect(originMaxAge(headers, T0)).toBe(expected);
  });
});

describe("isAcceptable (spec 4.6 ttl)", () => {
  const entry = (originMaxAge: number | null) => ({ fetchedAt: T0, originMaxAge });
  it.each([
    // ttl omitted: any cached entry
    [undefined, null, false, 10 ** 7, true],
    // ttl 0: live, unless the origin's lifetime covers the age or the host is pinned
    [0, null, false, 1, false],
    [0, 600, false, 599, true],
    [0, 600, false, 600, false],
    [0, null, true, 10 ** 7, true],
    // ttl N: younger than N; the origin's lifetime extends, never shortens
    [60, null, false, 59, true],
    [60, null, false, 60, false],
    [60, 10, false, 59, true],
    [60, 600, false, 300, true],
    [60, 0, false, 30, true],
  ] as [number | undefined, number | null, boolean, number, boolean][])(
    "ttl %s, origin max-age %s, pinned %s, age %s s → %s",
    (ttl, maxAge, pinned, age, expected) => {
      expect(isAcceptable(entry(maxAge), ttl, pinned, at(age))).toBe(expected);
    },
  );
});

describe("cache entries", () => {
  it("are keyed without the fragment", () => {
    expect(cacheKey(new URL("https://Example.com/a?b=1#frag"))).toBe("https://example.com/a?b=1");
  });
  it("never store validators or cookies (spec 4.6 rule 2)", () => {
    expect(storableHeaders({ etag: '"x"', "last-modified": "d", "set-cookie": "a=b", "content-type": "text/html" })).toEqual({
      "content-type": "text/html",
    });
  });
});

describe("contentKind", () => {
  const b = (s: string) => Buffer.from(s);
  it.each([
    ["text/html; charset=utf-8", "<p>x</p>", "https://e.com/", "html"],
    ["application/xhtml+xml", "<html/>", "https://e.com/", "html"],
    ["application/pdf", "%PDF-1.7", "https://e.com/x", "pdf"],
    ["application/octet-stream", "%PDF-1.4 ...", "https://e.com/x", "pdf"],
    ["text/csv", "a,b", "https://e.com/x", "csv"],
    ["text/plain", "a,b", "https://e.com/data.csv", "csv"],
    ["application/json", "{}", "https://e.com/", "json"],
    ["application/ld+json", "{}", "https://e.com/", "json"],
    ["text/plain", "hello", "https://e.com/", "text"],
    ["image/png", "\u0089PNG", "https://e.com/", "binary"],
    ["video/mp4", "....", "https://e.com/", "binary"],
    [undefined, "<!doctype html><p>x", "https://e.com/", "html"],
    [undefined, '{"a":1}', "https://e.com/", "json"],
    [undefined, "\u0000\u0001binary", "https://e.com/", "binary"],
    ["application/rss+xml", "<rss/>", "https://e.com/", "text"],
  ] as [string | undefined, string, string, string][])("%s with %j → %s", (type, body, url, expected) => {
    expect(contentKind(type, b(body), url)).toBe(expected);
  });
});

describe("isBotChallenge (spec 7.4 bot_blocked)", () => {
  const article = `<html><body><article>${"<p>Real article text about birds and their nests. </p>".repeat(60)}</article></body></html>`;
  it.each([
    ["Cloudflare interstitial", 403, {}, "<title>Just a moment...</title><script>window._cf_chl_opt={}</script>"],
    ["Cloudflare challenge header", 200, { "cf-mitigated": "challenge" }, "<p>hi</p>"],
    ["Cloudflare served with 200", 200, {}, '<script src="/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1"></script>'],
    ["Akamai block", 403, {}, "<title>Access Denied</title>Reference #18.1 https://errors.edgesuite.net/18.1"],
    ["PerimeterX", 403, {}, '<div id="px-captcha"></div><p>Press &amp; Hold to confirm you are a human</p>'],
    ["DataDome", 403, { "x-datadome": "protected" }, "<p>blocked</p>"],
    ["DataDome captcha frame", 200, {}, '<iframe src="https://geo.captcha-delivery.com/captcha/?initialCid=x"></iframe>'],
    ["reCAPTCHA interstitial", 200, {}, '<h1>Verify you are human</h1><div class="g-recaptcha" data-sitekey="x"></div>'],
    ["hCaptcha interstitial", 429, {}, '<div class="h-captcha"></div>'],
    ["Google unusual traffic", 429, {}, "<p>Our systems have detected unusual traffic from your computer network.</p>"],
  ] as [string, number, Record<string, string>, string][])("flags %s", (_name, status, headers, body) => {
    expect(isBotChallenge(status, headers, body)).toBe(true);
  });

  it.each([
    ["a normal article", 200, {}, article],
    [
      "an article with a captcha-protected comment form",
      200,
      {},
      article.replace("</article>", '</article><form><div class="g-recaptcha"></div></form>'),
    ],
    ["a 404 page", 404, {}, "<title>Not found</title><p>Nothing here</p>"],
    [
      "an article that mentions Cloudflare",
      200,
      {},
      article.replace("Real article", "Cloudflare and Akamai run CDNs; real article"),
    ],
  ] as [string, number, Record<string, string>, string][])("does not flag %s", (_name, status, headers, body) => {
    expect(isBotChallenge(status, headers, body)).toBe(false);
  });
});
