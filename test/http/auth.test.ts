import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";

/**
 * Spec 5 and 7.1: every endpoint of every surface authenticates the same way, before anything
 * else, and every failure has the same body. One table of endpoints × one table of outcomes.
 */

interface Endpoint {
  surface: string;
  method: string;
  path: string;
  body?: string;
  /** What a valid key gets: the route's 200, or a 404 whose message matches. */
  valid: { status: 200 } | { status: 404; message: RegExp };
}

const notAvailable = (title: string) => ({ status: 404 as const, message: new RegExp(`${title} is not available`, "i") });
const noEndpoint = { status: 404 as const, message: /No endpoint at/ };

const ENDPOINTS: Endpoint[] = [
  { surface: "agent", method: "GET", path: "/v1/account", valid: { status: 200 } },
  { surface: "agent", method: "GET", path: "/v1/api-keys", valid: { status: 200 } },
  { surface: "agent", method: "GET", path: "/v1/runs/abc", valid: { status: 404 as const, message: /No run with id abc/ } },
  { surface: "agent", method: "GET", path: "/v1/runs", valid: { status: 200 } },
  { surface: "agent", method: "GET", path: "/v1/nope", valid: noEndpoint },
  {
    surface: "fetch",
    method: "POST",
    path: "/fetch",
    // A loopback URL: refused per URL by the address policy (200 with errors[]), never connected to.
    body: JSON.stringify({ urls: ["http://127.0.0.1:9/x"] }),
    valid: { status: 200 },
  },
  { surface: "fetch", method: "GET", path: "/fetch/usage", valid: { status: 200 } },
  // The test context enables search over the (empty) local index: an empty page of results.
  { surface: "search", method: "GET", path: "/search?query=x", valid: { status: 200 } },
  { surface: "search", method: "GET", path: "/search/usage", valid: { status: 200 } },
  { surface: "browser", method: "DELETE", path: "/browser/sess_1", valid: notAvailable("browser session API") },
  { surface: "browser", method: "GET", path: "/browser/usage", valid: notAvailable("browser session API") },
  { surface: "browser", method: "GET", path: "/browser/v1/browser/usage", valid: notAvailable("browser session API") },
  { surface: "none", method: "GET", path: "/nope", valid: noEndpoint },
];

interface Fixtures {
  valid: string;
  revoked: string;
  expired: string;
  suspended: string;
}

const UNKNOWN_KEY = `osk_${"Z".repeat(40)}`;

const OUTCOMES: { name: string; header: (f: Fixtures) => string | undefined; code: string }[] = [
  { name: "header absent", header: () => undefined, code: "MISSING_API_KEY" },
  { name: "header empty", header: () => "", code: "MISSING_API_KEY" },
  { name: "header whitespace-only", header: () => " \t  ", code: "MISSING_API_KEY" },
  { name: "unknown well-formed osk_ key", header: () => UNKNOWN_KEY, code: "INVALID_API_KEY" },
  { name: "garbage value", header: () => "not-a-key !@#$%", code: "INVALID_API_KEY" },
  { name: "bare prefix", header: () => "osk_", code: "INVALID_API_KEY" },
  { name: "5000-character value", header: () => `osk_${"a".repeat(4996)}`, code: "INVALID_API_KEY" },
  { name: "valid key sent as a Bearer token", header: (f) => `Bearer ${f.valid}`, code: "INVALID_API_KEY" },
  { name: "revoked key", header: (f) => f.revoked, code: "INVALID_API_KEY" },
  { name: "expired key", header: (f) => f.expired, code: "UNAUTHORIZED" },
  { name: "key of a suspended account", header: (f) => f.suspended, code: "UNAUTHORIZED" },
];

/** Spec 7.1: exactly {error:{code,message},request_id}, JSON, X-Request-ID equal to request_id. */
async function expectErrorBody(res: Response, status: number, code: string) {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/json\b/);
  const body = JSON.parse(text);
  expect(Object.keys(body).sort()).toEqual(["error", "request_id"]);
  expect(Object.keys(body.error).sort()).toEqual(["code", "message"]);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe("string");
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(body.request_id).toMatch(/^req_/);
  expect(res.headers.get("x-request-id")).toBe(body.request_id);
  return { body, text };
}

function send(ctx: TestContext, ep: Pick<Endpoint, "method" | "path" | "body">, key: string | undefined) {
  const headers = new Headers(ep.body === undefined ? {} : { "content-type": "application/json" });
  if (key !== undefined) headers.set("x-api-key", key);
  return ctx.app.request(ep.path, { method: ep.method, headers, ...(ep.body === undefined ? {} : { body: ep.body }) });
}

describe.each(driverCases())("authentication on $driver", ({ open }) => {
  let db: TestDatabase;
  let ctx: TestContext;
  let accountId: string;
  const f: Fixtures = { valid: "", revoked: "", expired: "", suspended: "" };

  beforeAll(async () => {
    db = await open();
    ctx = createTestContext(db.db);
    const { services, clock } = ctx;
    const main = await ctx.newKey();
    accountId = main.accountId;
    f.valid = main.key;
    const revoked = await services.apiKeys.create({ accountId });
    await services.apiKeys.revoke(revoked.row.id);
    f.revoked = revoked.key;
    const expired = await services.apiKeys.create({ accountId, expiresAt: new Date(clock.now().getTime() - 1000) });
    f.expired = expired.key;
    const suspended = await ctx.newKey();
    await services.accounts.setSuspended(suspended.accountId, true);
    f.suspended = suspended.key;
  });
  afterAll(() => db.dispose());

  describe.each(ENDPOINTS)("$surface: $method $path", (ep) => {
    it.each(OUTCOMES)("$name → 401 $code", async ({ header, code }) => {
      const key = header(f);
      const { text } = await expectErrorBody(await send(ctx, ep, key), 401, code);
      // The offered key is never echoed back.
      if (key && key.trim().length > 8) expect(text).not.toContain(key.trim());
    });

    it(`valid key → ${ep.valid.status}, never 401`, async () => {
      const res = await send(ctx, ep, f.valid);
      expect(res.headers.get("x-request-id")).toMatch(/^req_/);
      if (ep.valid.status === 200) {
        expect(res.status, await res.clone().text()).toBe(200);
        return;
      }
      const { body } = await expectErrorBody(res, 404, "NOT_FOUND");
      expect(body.error.message).toMatch(ep.valid.message);
    });
  });

  it("gives unknown and revoked keys the same answer, so a revoked key cannot be told apart", async () => {
    const unknown = await expectErrorBody(await ctx.call(UNKNOWN_KEY, "/v1/account"), 401, "INVALID_API_KEY");
    const revoked = await expectErrorBody(await ctx.call(f.revoked, "/v1/account"), 401, "INVALID_API_KEY");
    expect(revoked.body.error.message).toBe(unknown.body.error.message);
  });

  it("accepts a valid key with surrounding whitespace", async () => {
    expect((await ctx.call(`  ${f.valid}\t`, "/v1/account")).status).toBe(200);
  });

  describe("authentication runs before validation and body handling", () => {
    const bad: Pick<Endpoint, "method" | "path" | "body">[] = [
      { method: "GET", path: "/v1/api-keys?limit=0&page=abc" },
      { method: "GET", path: "/search" },
      { method: "POST", path: "/fetch", body: "{not json" },
      { method: "POST", path: "/fetch", body: JSON.stringify({ pad: "x".repeat(2 * 1024 * 1024) }) },
    ];
    it.each(bad.map((ep) => ({ ...ep, label: `${ep.method} ${ep.path.slice(0, 40)} (${ep.body?.length ?? 0} B)` })))(
      "$label without a key → 401 MISSING_API_KEY, with an unknown key → 401 INVALID_API_KEY",
      async (ep) => {
        await expectErrorBody(await send(ctx, ep, undefined), 401, "MISSING_API_KEY");
        await expectErrorBody(await send(ctx, ep, UNKNOWN_KEY), 401, "INVALID_API_KEY");
        await expectErrorBody(await send(ctx, ep, f.expired), 401, "UNAUTHORIZED");
      },
    );

    it("the same bad query with a valid key is a 400", async () => {
      const res = await send(ctx, bad[0] as Endpoint, f.valid);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("INVALID_INPUT");
    });
  });

  describe("other kinds of valid keys", () => {
    it.each([
      { kind: "an mcp-scope key", input: { scope: "mcp" as const } },
      { kind: "a key with a sub_user_id", input: { subUserId: "user_42" } },
      { kind: "an mcp key with a sub_user_id and a future expiry", input: { scope: "mcp" as const, subUserId: "u-7" } },
    ])("$kind authenticates as its account", async ({ input }) => {
      const expiresAt = new Date(ctx.clock.now().getTime() + 86_400_000);
      const { key, row } = await ctx.services.apiKeys.create({ accountId, expiresAt, ...input });
      const account = await ctx.call(key, "/v1/account");
      expect(account.status).toBe(200);
      expect(((await account.json()) as { id: string }).id).toBe(accountId);
      const list = await ctx.call(key, "/v1/api-keys?limit=1000");
      expect(list.status).toBe(200);
      const { items } = (await list.json()) as { items: { id: string }[] };
      const item = items.find((k) => k.id === row.id);
      expect(item).toMatchObject({ scope: input.scope ?? "api", sub_user_id: input.subUserId ?? null });
    });
  });

  describe("clock-dependent behaviour (own clock per test)", () => {
    it("a key stops working at the instant it expires", async () => {
      const own = createTestContext(db.db);
      const { accountId: acct } = await own.newKey();
      const { key } = await own.services.apiKeys.create({
        accountId: acct,
        expiresAt: new Date(own.clock.now().getTime() + 60_000),
      });
      own.clock.advance(59_999);
      expect((await own.call(key, "/v1/account")).status).toBe(200);
      own.clock.advance(1);
      await expectErrorBody(await own.call(key, "/v1/account"), 401, "UNAUTHORIZED");
    });

    it("suspension takes effect on the next request and lifting it restores access", async () => {
      const own = createTestContext(db.db);
      const { key, accountId: acct } = await own.newKey();
      expect((await own.call(key, "/v1/account")).status).toBe(200);
      await own.services.accounts.setSuspended(acct, true);
      await expectErrorBody(await own.call(key, "/v1/api-keys"), 401, "UNAUTHORIZED");
      await own.services.accounts.setSuspended(acct, false);
      expect((await own.call(key, "/v1/api-keys")).status).toBe(200);
    });

    it("sets last_used_at on success and rewrites it at most once a minute", async () => {
      const own = createTestContext(db.db);
      const { key, accountId: acct, keyId } = await own.newKey();
      const lastUsed = async () => (await own.services.apiKeys.listAll(acct)).find((k) => k.id === keyId)?.lastUsedAt ?? null;
      expect(await lastUsed()).toBeNull();

      const t0 = own.clock.now();
      expect((await own.call(key, "/v1/account")).status).toBe(200);
      expect(await lastUsed()).toEqual(t0);

      own.clock.advance(30_000);
      expect((await own.call(key, "/v1/api-keys")).status).toBe(200);
      own.clock.advance(29_999);
      expect((await own.call(key, "/v1/account")).status).toBe(200);
      expect(await lastUsed()).toEqual(t0);

      own.clock.advance(1_001);
      const t1 = own.clock.now();
      expect((await own.call(key, "/v1/account")).status).toBe(200);
      expect(await lastUsed()).toEqual(t1);
    });

    it("failed authentications never set last_used_at", async () => {
      const rows = await ctx.services.apiKeys.listAll();
      const byKeyPrefix = (key: string) => rows.find((r) => key.startsWith(r.prefix));
      for (const key of [f.revoked, f.expired, f.suspended]) {
        expect(byKeyPrefix(key)?.lastUsedAt).toBeNull();
      }
      expect(byKeyPrefix(f.valid)?.lastUsedAt).toBeInstanceOf(Date);
    });
  });
});
