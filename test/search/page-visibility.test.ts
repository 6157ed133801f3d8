import { describe, expect, it } from "vitest";
import { type FetchedPageSigns, publicByEverySign } from "../../functions/search/page-visibility.ts";

const base: FetchedPageSigns = {
  requestedUrl: "https://example.com/guide",
  finalUrl: "https://example.com/guide",
  sentHeaders: { "user-agent": "Osprey" },
  status: 200,
  headers: { "content-type": "text/html", "cache-control": "public, max-age=600" },
  live: true,
  rendered: false,
};
const signs = (o: Partial<FetchedPageSigns>): FetchedPageSigns => ({ ...base, ...o });

describe("publicByEverySign", () => {
  it("accepts a live, anonymous, cacheable 200 (a fragment is not part of the page)", () => {
    expect(publicByEverySign(base)).toBe(true);
    expect(publicByEverySign(signs({ headers: { "content-type": "text/html" } }))).toBe(true);
    expect(publicByEverySign(signs({ finalUrl: "https://example.com/guide#part-2" }))).toBe(true);
  });

  it.each<[string, Partial<FetchedPageSigns>]>([
    ["a query string", { requestedUrl: "https://example.com/guide?token=abc" }],
    ["an empty query string", { requestedUrl: "https://example.com/guide?" }],
    ["a query string after a redirect", { finalUrl: "https://example.com/guide?sid=1" }],
    ["userinfo", { requestedUrl: "https://user:pw@example.com/guide" }],
    ["a user name alone", { finalUrl: "https://user@example.com/guide" }],
    ["an Authorization header", { sentHeaders: { Authorization: "Bearer x" } }],
    ["a Cookie header", { sentHeaders: { cookie: "sid=1" } }],
    ["Set-Cookie", { headers: { "set-cookie": "sid=1" } }],
    ["Cache-Control: private", { headers: { "cache-control": "max-age=60, Private" } }],
    ["Cache-Control: no-store", { headers: { "cache-control": "no-store" } }],
    ["a 206", { status: 206 }],
    ["a cached copy", { live: false }],
    ["a rendered page", { rendered: true }],
    ["an unparsable URL", { finalUrl: "not a url" }],
  ])("refuses a page with %s", (_, o) => {
    expect(publicByEverySign(signs(o))).toBe(false);
  });
});
