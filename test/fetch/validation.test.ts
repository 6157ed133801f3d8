import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";

interface ErrorBody {
  error: { code: string; message: string; details?: { code: string; path: (string | number)[]; values?: unknown[] }[] };
  request_id: string;
}

const U = "https://example.com/a";

// Spec 4.6 and 8: every 400 rule of POST {fetch_url}, the 422 selector rule, and the usage query.
// None of these requests may reach the network: the origin is a public name that is never fetched.
describe.each(driverCases(["pglite"]))("fetch request validation on $driver", ({ open }) => {
  let db: TestDatabase;
  let ctx: TestContext;
  let key: string;
  beforeAll(async () => {
    db = await open();
    ctx = createTestContext(db.db);
    ({ key } = await ctx.newKey({ plan: "pro" }));
  });
  afterAll(() => db.dispose());

  const post = (body: unknown) => ctx.postJson(key, "/fetch", body);

  const cases: [string, unknown, string][] = [
    ["urls missing", {}, "urls"],
    ["urls empty", { urls: [] }, "urls"],
    ["11 urls", { urls: Array.from({ length: 11 }, (_, i) => `${U}${i}`) }, "urls"],
    ["urls not an array", { urls: U }, "urls"],
    ["a relative url", { urls: ["/path"] }, "urls.0"],
    ["a url without scheme", { urls: ["example.com"] }, "urls.0"],
    ["an ftp url", { urls: ["ftp://example.com/file"] }, "urls.0"],
    ["a file url", { urls: ["file:///etc/passwd"] }, "urls.0"],
    ["a javascript url", { urls: ["javascript:alert(1)"] }, "urls.0"],
    ["a number in urls", { urls: [42] }, "urls.0"],
    ["empty purpose", { urls: [U], purpose: "" }, "purpose"],
    ["whitespace purpose", { urls: [U], purpose: " \n\t " }, "purpose"],
    ["purpose over 2000", { urls: [U], purpose: "x".repeat(2001) }, "purpose"],
    ["unknown format", { urls: [U], format: "pdf" }, "format"],
    ["links not boolean", { urls: [U], links: "yes" }, "links"],
    ["image_links not boolean", { urls: [U], image_links: 1 }, "image_links"],
    ["negative ttl", { urls: [U], ttl: -1 }, "ttl"],
    ["fractional ttl", { urls: [U], ttl: 1.5 }, "ttl"],
    ["per_url_timeout_ms 0", { urls: [U], per_url_timeout_ms: 0 }, "per_url_timeout_ms"],
    ["per_url_timeout_ms 110001", { urls: [U], per_url_timeout_ms: 110_001 }, "per_url_timeout_ms"],
    ["empty if_none_match", { urls: [U], if_none_match: "" }, "if_none_match"],
    ["empty if_modified_since", { urls: [U], if_modified_since: "" }, "if_modified_since"],
    ["if_none_match with a batch", { urls: [U, `${U}2`], if_none_match: '"abc"' }, "if_none_match"],
    // Sent verbatim as a header: CR/LF would let the caller write headers of their own.
    ["if_none_match with CR LF", { urls: [U], if_none_match: '"abc"\r\nX-Injected: 1' }, "if_none_match"],
    ["if_none_match with a bare LF", { urls: [U], if_none_match: '"abc"\nX-Injected: 1' }, "if_none_match"],
    ["if_none_match with NUL", { urls: [U], if_none_match: '"a\u0000b"' }, "if_none_match"],
    ["if_none_match beyond Latin-1", { urls: [U], if_none_match: '"\u2603"' }, "if_none_match"],
    [
      "if_modified_since with CR",
      { urls: [U], if_modified_since: "Sat, 21 Nov 2026 10:00:00 GMT\rX-Injected: 1" },
      "if_modified_since",
    ],
    ["if_modified_since with DEL", { urls: [U], if_modified_since: "Sat, 21 Nov 2026\u007f" }, "if_modified_since"],
    [
      "if_modified_since with a batch",
      { urls: [U, `${U}2`], if_modified_since: "Sat, 21 Nov 2026 10:00:00 GMT" },
      "if_modified_since",
    ],
    ["empty include_selectors", { urls: [U], include_selectors: [] }, "include_selectors"],
    [
      "21 include_selectors",
      { urls: [U], include_selectors: Array.from({ length: 21 }, (_, i) => `#a${i}`) },
      "include_selectors",
    ],
    ["an empty selector", { urls: [U], exclude_selectors: [""] }, "exclude_selectors.0"],
    ["a selector over 1000", { urls: [U], include_selectors: [`#${"a".repeat(1000)}`] }, "include_selectors.0"],
    ["an unknown field", { urls: [U], formats: "html" }, ""],
  ];

  it.each(cases)("%s → 400 INVALID_INPUT naming %s", async (_name, body, path) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    const b = (await res.json()) as ErrorBody;
    expect(b.error.code).toBe("INVALID_INPUT");
    expect(b.request_id).toBe(res.headers.get("x-request-id"));
    expect(b.error.details?.some((d) => d.path.join(".") === path)).toBe(true);
  });

  it("an unknown format lists the allowed values", async () => {
    const b = (await (await post({ urls: [U], format: "pdf" })).json()) as ErrorBody;
    expect(b.error.details?.[0]?.values).toEqual(["markdown", "html", "json"]);
  });

  it.each([["p["], ["div > > p"], ["#"], ["a:unknown-pseudo(("], ['[href="x]']])(
    "invalid selector syntax %s → 422 INVALID_INPUT (rule 6)",
    async (selector) => {
      const res = await post({ urls: [U], include_selectors: ["article", selector] });
      expect(res.status).toBe(422);
      const b = (await res.json()) as ErrorBody;
      expect(b.error.code).toBe("INVALID_INPUT");
      expect(b.error.message).toContain(JSON.stringify(selector));
      const excluded = await post({ urls: [U], exclude_selectors: [selector] });
      expect(excluded.status).toBe(422);
    },
  );

  it("a batch larger than the key's URL-per-minute limit is refused whole with 429", async () => {
    const { key: small, accountId } = await ctx.newKey({ plan: "free" });
    await ctx.services.accounts.setLimits(accountId, { fetchUpm: 3 });
    const res = await ctx.postJson(small, "/fetch", { urls: [`${U}1`, `${U}2`, `${U}3`, `${U}4`] });
    expect(res.status).toBe(429);
    expect(res.headers.get("x-ratelimit-limit")).toBe("3");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(((await res.json()) as ErrorBody).error.message).toMatch(/split/);
  });

  it.each([
    ["status=done", "status"],
    ["limit=0", "limit"],
    ["page=0", "page"],
    ["start_after=yesterday", "start_after"],
    ["end_before=2026-13-45T00:00:00Z", "end_before"],
    // Impossible dates that Date.parse rolls over into the next month.
    ["start_after=2026-02-30", "start_after"],
    ["start_after=2026-02-29", "start_after"],
    ["end_before=2026-13-01", "end_before"],
    ["end_before=2026-04-31T10:00:00Z", "end_before"],
    ["end_before=2026-11-21T24:00:00Z", "end_before"],
    ["start_after=2026-11-21T10:00:00Z&end_before=2026-11-20T10:00:00Z", "start_after"],
    ["foo=bar", ""],
  ])("GET /fetch/usage?%s → 400 naming %s", async (query, path) => {
    const res = await ctx.call(key, `/fetch/usage?${query}`);
    expect(res.status).toBe(400);
    const b = (await res.json()) as ErrorBody;
    expect(b.error.details?.some((d) => d.path.join(".") === path)).toBe(true);
  });
});
