import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rateLimitRepo } from "../../functions/repos/rate-limit.repo.ts";
import { WINDOW_MS } from "../../functions/services/rate-limit.service.ts";
import { sessionRepo } from "../../functions/sessions/session.repo.ts";
import type { SessionWire } from "../../functions/sessions/session.wire.ts";
import { SessionHostBusyError } from "../../functions/sessions/session-host.ts";
import type { Plan } from "../../schema/plans.ts";
import { createTestContext, TestClock, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { DOUBLE_END_BYTES as END_BYTES, SessionHostDouble, sessionsOver } from "../helpers/session-host-double.ts";

/**
 * The browser session API over HTTP (spec 2.4, 3.2, 4.5, 5, 7.1, 8): request validation, the
 * entitlement and ownership checks, the open-session cap and the per-minute limit, DELETE's
 * idempotence, the usage listing at both of its paths, and the OpenAPI documents. Chromium, the
 * CDP relay and the egress proxy are covered end to end in session-cdp.test.ts; here the session
 * host is a double of its port (test/helpers/session-host-double.ts), so every case is fast and exact.
 */

const T0 = "2026-11-21T10:00:00.000Z";
const PUBLIC_BASE = "http://127.0.0.1:8787/browser";
const DE_PROXY = "http://user:pw@proxy-de.internal:3128";
const CUSTOM_PASSWORD = "s3cr3t-Pa55";
const CUSTOM_PROXY = `http://alice:${CUSTOM_PASSWORD}@proxy.example.com:8080`;
const UNKNOWN_KEY = `osk_${"Z".repeat(40)}`;
/** What the API answers, as the code declares it (a test that typed its own copy could drift from it). */
type Session = SessionWire;

interface UsageItem {
  session_id: string;
  status: string;
  end_time: string | null;
  duration_ms: number | null;
  [field: string]: unknown;
}

interface UsagePage {
  items: UsageItem[];
  total: number;
  limit: number;
  page: number;
  total_pages: number;
  has_more: boolean;
}

interface ErrorBody {
  error: { code: string; message: string; details?: { code: string; path: (string | number)[]; message: string }[] };
  request_id: string;
}

/** Spec 2.4: every field of a usage record, always present. */
const USAGE_FIELDS = [
  "created_at",
  "duration_ms",
  "end_time",
  "mode",
  "proxy_trg_rx_bytes",
  "proxy_trg_tx_bytes",
  "session_id",
  "start_time",
  "status",
  "sub_user_id",
  "updated_at",
  "user_id",
];

const USAGE_PATHS = ["/browser/usage", "/browser/v1/browser/usage"];

/** Asserts the status and error code of a spec 7.1 body and returns it. */
async function expectError(res: Response, status: number, code: string): Promise<ErrorBody> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  const body = JSON.parse(text) as ErrorBody;
  expect(body.error.code).toBe(code);
  expect(res.headers.get("x-request-id")).toBe(body.request_id);
  return body;
}

/** A 400 INVALID_INPUT one of whose details has this `path`. */
async function expectInvalid(res: Response, path: (string | number)[]): Promise<ErrorBody> {
  const body = await expectError(res, 400, "INVALID_INPUT");
  expect(body.error.details?.map((d) => d.path)).toContainEqual(path);
  return body;
}

describe.each(driverCases(["pglite", "pg"]))("browser session API on $driver", ({ open }) => {
  let db: TestDatabase;
  let ctx: TestContext;
  let host: SessionHostDouble;

  async function newKey(plan: Plan = "pro") {
    return ctx.newKey({ plan });
  }

  /** POST /browser with `body` as JSON (or with no body at all when undefined). */
  function create(key: string, body?: unknown): Promise<Response> {
    return body === undefined ? ctx.call(key, "/browser", { method: "POST" }) : ctx.postJson(key, "/browser", body);
  }

  async function created(key: string, body?: unknown): Promise<Session> {
    const res = await create(key, body);
    expect(res.status, await res.clone().text()).toBe(201);
    return (await res.json()) as Session;
  }

  async function getSession(key: string, id: string): Promise<Session> {
    const res = await ctx.call(key, `/browser/${id}`);
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as Session;
  }

  function remove(key: string, id: string): Promise<Response> {
    return ctx.call(key, `/browser/${id}`, { method: "DELETE" });
  }

  async function usage(key: string, query = "", path = "/browser/usage"): Promise<UsagePage> {
    const res = await ctx.call(key, `${path}${query}`);
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as UsagePage;
  }

  /** Creations counted against the key in the clock's current minute. */
  async function creationsThisMinute(keyId: string): Promise<number> {
    const now = ctx.clock.now().getTime();
    return rateLimitRepo(db.db).current(keyId, "browser", new Date(Math.floor(now / WINDOW_MS) * WINDOW_MS));
  }

  beforeAll(async () => {
    db = await open();
    const clock = new TestClock();
    host = new SessionHostDouble(db.db, clock);
    ctx = createTestContext(db.db, {
      clock,
      sessions: sessionsOver(host, { countryProxies: { DE: DE_PROXY }, publicBase: PUBLIC_BASE }),
    });
  });
  afterAll(async () => {
    await db.dispose();
  });
  beforeEach(() => {
    ctx.clock.set(T0);
  });

  describe("POST /browser", () => {
    it.each([
      { name: "no body", body: undefined },
      { name: "an empty object", body: {} },
    ])("with $name → 201, a light session with the defaults", async ({ body }) => {
      const { key, accountId } = await newKey();
      const s = await created(key, body);
      expect(s.session_id).toMatch(/^bs_[0-9a-z]+$/);
      const token = /^ws:\/\/127\.0\.0\.1:8787\/browser\/(bs_[0-9a-z]+)\/cdp\?token=([A-Za-z0-9]{32})$/.exec(s.cdp_url ?? "");
      expect(token?.[1]).toBe(s.session_id);
      expect(s).toEqual({
        session_id: s.session_id,
        status: "created",
        mode: "light",
        cdp_url: s.cdp_url,
        live_view_url: `${PUBLIC_BASE}/live/${token?.[2]}`,
        created_at: T0,
        expires_at: "2026-11-21T10:15:00.000Z",
        start_time: T0,
        end_time: null,
        duration_ms: null,
        timeout_seconds: 900,
        inactivity_timeout_seconds: 300,
        viewport: { width: 1280, height: 800 },
        fingerprint_seed: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
        proxy: null,
        end_reason: null,
        proxy_trg_rx_bytes: null,
        proxy_trg_tx_bytes: null,
        profile_id: null,
      });
      expect(host.startsOf(accountId)).toEqual([
        {
          id: s.session_id,
          accountId,
          token: token?.[2],
          mode: "light",
          viewport: { width: 1280, height: 800 },
          fingerprintSeed: s.fingerprint_seed,
          countryCode: null,
          upstream: null,
          startedAt: new Date(T0),
          expiresAt: new Date("2026-11-21T10:15:00.000Z"),
          inactivityMs: 300_000,
          profile: null,
        },
      ]);
    });

    it("draws a new random fingerprint seed for each session that names none", async () => {
      const { key } = await newKey();
      const a = await created(key, {});
      const b = await created(key, {});
      expect(a.fingerprint_seed).not.toBe(b.fingerprint_seed);
    });

    it("with every option → 201 echoing them, and the host gets the managed upstream as trusted", async () => {
      const { key, accountId } = await newKey();
      const s = await created(key, {
        mode: "stealth",
        timeout_seconds: 3600,
        inactivity_timeout_seconds: 60,
        viewport: { width: 1920, height: 1080 },
        fingerprint_seed: "seed-42",
        proxy_config: { type: "managed", country_code: "DE" },
      });
      expect(s).toMatchObject({
        status: "created",
        mode: "stealth",
        created_at: T0,
        expires_at: "2026-11-21T11:00:00.000Z",
        timeout_seconds: 3600,
        inactivity_timeout_seconds: 60,
        viewport: { width: 1920, height: 1080 },
        fingerprint_seed: "seed-42",
        proxy: { type: "managed", country_code: "DE" },
      });
      const [launch] = host.startsOf(accountId);
      expect(launch).toMatchObject({
        id: s.session_id,
        mode: "stealth",
        viewport: { width: 1920, height: 1080 },
        fingerprintSeed: "seed-42",
        countryCode: "DE",
        upstream: { url: DE_PROXY, trusted: true },
        expiresAt: new Date("2026-11-21T11:00:00.000Z"),
        inactivityMs: 60_000,
      });
      expect(s.cdp_url).toContain(`token=${launch?.token}`);
      // The operator's upstream (and its credentials) stays on the server.
      expect(JSON.stringify(s)).not.toContain("proxy-de.internal");
    });

    it("with a custom proxy → 201, the host gets it as untrusted, and its password is never shown or stored", async () => {
      const { key, accountId } = await newKey("pro");
      const res = await create(key, { proxy_config: { type: "custom", url: CUSTOM_PROXY } });
      const createText = await res.text();
      expect(res.status, createText).toBe(201);
      const s = JSON.parse(createText) as Session;
      expect(s.proxy).toEqual({ type: "custom", country_code: null });
      expect(host.startsOf(accountId)[0]).toMatchObject({ countryCode: null, upstream: { url: CUSTOM_PROXY, trusted: false } });

      const texts = [createText, await (await ctx.call(key, `/browser/${s.session_id}`)).text()];
      for (const path of USAGE_PATHS) texts.push(await (await ctx.call(key, path)).text());
      expect(await remove(key, s.session_id).then((r) => r.status)).toBe(204);
      texts.push(await (await ctx.call(key, `/browser/${s.session_id}`)).text());
      for (const text of texts) {
        expect(text).toContain(s.session_id);
        expect(text).not.toContain(CUSTOM_PASSWORD);
        expect(text).not.toContain("proxy.example.com");
      }
      const row = await sessionRepo(db.db).get(s.session_id);
      expect(row?.options).toMatchObject({ proxy: { type: "custom", country_code: null } });
      expect(JSON.stringify(row)).not.toContain(CUSTOM_PASSWORD);
      expect(JSON.stringify(row?.options)).not.toContain("proxy.example.com");
    });

    it("a body sent as text/plain → 400 rather than silently ignored", async () => {
      const { key, accountId } = await newKey();
      const res = await ctx.call(key, "/browser", { method: "POST", body: JSON.stringify({ mode: "stealth" }) });
      expect((await expectError(res, 400, "INVALID_INPUT")).error.message).toMatch(/Content-Type: application\/json/);
      expect(host.startsOf(accountId)).toEqual([]);
    });
  });

  describe("refused creations start nothing and use up no per-minute allowance", () => {
    const nul = "seed\u0000x";
    const bad: { name: string; body: unknown; path: (string | number)[] }[] = [
      { name: "an unknown field", body: { colour: "red" }, path: [] },
      { name: "mode heavy", body: { mode: "heavy" }, path: ["mode"] },
      { name: "timeout_seconds 59", body: { timeout_seconds: 59 }, path: ["timeout_seconds"] },
      { name: "timeout_seconds 21601", body: { timeout_seconds: 21_601 }, path: ["timeout_seconds"] },
      { name: "timeout_seconds 1.5", body: { timeout_seconds: 1.5 }, path: ["timeout_seconds"] },
      { name: 'timeout_seconds "900"', body: { timeout_seconds: "900" }, path: ["timeout_seconds"] },
      { name: "inactivity_timeout_seconds 9", body: { inactivity_timeout_seconds: 9 }, path: ["inactivity_timeout_seconds"] },
      { name: "viewport 100×100 (width)", body: { viewport: { width: 100, height: 100 } }, path: ["viewport", "width"] },
      { name: "viewport 100×100 (height)", body: { viewport: { width: 100, height: 100 } }, path: ["viewport", "height"] },
      {
        name: "an extra viewport field",
        body: { viewport: { width: 1280, height: 800, depth: 24 } },
        path: ["viewport"],
      },
      { name: "proxy_config without a type", body: { proxy_config: { country_code: "DE" } }, path: ["proxy_config", "type"] },
      {
        name: "managed proxy in an unsupported country",
        body: { proxy_config: { type: "managed", country_code: "XX" } },
        path: ["proxy_config", "country_code"],
      },
      {
        name: "custom proxy over socks5",
        body: { proxy_config: { type: "custom", url: "socks5://proxy.example.com:1080" } },
        path: ["proxy_config", "url"],
      },
      {
        name: "custom proxy with a path",
        body: { proxy_config: { type: "custom", url: "http://proxy.example.com/path" } },
        path: ["proxy_config", "url"],
      },
      {
        name: "custom proxy at a private address",
        body: { proxy_config: { type: "custom", url: "http://10.0.0.1:3128" } },
        path: ["proxy_config", "url"],
      },
      {
        name: "custom proxy at the metadata address",
        body: { proxy_config: { type: "custom", url: "http://169.254.169.254" } },
        path: ["proxy_config", "url"],
      },
      { name: "an empty fingerprint_seed", body: { fingerprint_seed: "" }, path: ["fingerprint_seed"] },
      { name: "a 257-character fingerprint_seed", body: { fingerprint_seed: "s".repeat(257) }, path: ["fingerprint_seed"] },
      { name: "a JSON array", body: [], path: [] },
      { name: "a NUL character in a string", body: { fingerprint_seed: nul }, path: ["fingerprint_seed"] },
    ];

    // One pro account (it holds custom_proxy, so the URL checks are reached) for every refusal.
    let key = "";
    let keyId = "";
    let accountId = "";
    beforeAll(async () => {
      ({ key, keyId, accountId } = await newKey("pro"));
    });

    async function expectNothingSpent() {
      expect(host.startsOf(accountId)).toEqual([]);
      expect(await creationsThisMinute(keyId)).toBe(0);
      expect((await usage(key)).total).toBe(0);
    }

    it.each(bad)("$name → 400 INVALID_INPUT at $path", async ({ body, path }) => {
      await expectInvalid(await create(key, body), path);
      await expectNothingSpent();
    });

    it("a managed country this server has no proxy for → 400 naming the operator setting", async () => {
      const body = await expectInvalid(await create(key, { proxy_config: { type: "managed", country_code: "JP" } }), [
        "proxy_config",
        "country_code",
      ]);
      expect(body.error.message).toContain("OSPREY_PROXY_COUNTRIES");
      await expectNothingSpent();
    });

    it("a body that is not JSON → 400 INVALID_INPUT", async () => {
      const res = await ctx.call(key, "/browser", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{mode: light",
      });
      expect((await expectError(res, 400, "INVALID_INPUT")).error.message).toMatch(/not valid JSON/);
      await expectNothingSpent();
    });

    it("a profile_id → 404 NOT_FOUND (no profile exists yet)", async () => {
      await expectError(await create(key, { profile_id: "prof_123" }), 404, "NOT_FOUND");
      await expectNothingSpent();
    });

    it.each<Plan>(["free", "starter"])("a custom proxy on plan %s → 403 FORBIDDEN, before anything is spent", async (plan) => {
      const other = await newKey(plan);
      const body = await expectError(
        await create(other.key, { proxy_config: { type: "custom", url: CUSTOM_PROXY } }),
        403,
        "FORBIDDEN",
      );
      expect(body.error.message).toContain("custom_proxy");
      expect(body.error.message).not.toContain(CUSTOM_PASSWORD);
      expect(host.startsOf(other.accountId)).toEqual([]);
      expect(await creationsThisMinute(other.keyId)).toBe(0);
      // The entitlement is checked before the URL: a bad URL is the same 403.
      await expectError(
        await create(other.key, { proxy_config: { type: "custom", url: "http://10.0.0.1:3128" } }),
        403,
        "FORBIDDEN",
      );
    });
  });

  describe("authentication (spec 5)", () => {
    const endpoints = [
      { method: "POST", path: "/browser" },
      { method: "GET", path: "/browser/bs_whatever" },
      { method: "DELETE", path: "/browser/bs_whatever" },
      { method: "GET", path: "/browser/usage" },
      { method: "GET", path: "/browser/v1/browser/usage" },
    ];
    it.each(endpoints)("$method $path: no key → 401 MISSING_API_KEY, unknown key → 401 INVALID_API_KEY", async (ep) => {
      const init = { method: ep.method, headers: { "content-type": "application/json" } };
      const body = ep.method === "POST" ? { body: "{}" } : {};
      const starts = host.starts.length;
      await expectError(await ctx.app.request(ep.path, { ...init, ...body }), 401, "MISSING_API_KEY");
      await expectError(await ctx.call(UNKNOWN_KEY, ep.path, { ...init, ...body }), 401, "INVALID_API_KEY");
      expect(host.starts).toHaveLength(starts);
    });
  });

  describe("ownership and DELETE (spec 3.2)", () => {
    it("another account, and an mcp key of the same account, see 404 and no usage record", async () => {
      const a = await newKey();
      const b = await newKey();
      const mcp = await ctx.services.apiKeys.create({ accountId: a.accountId, scope: "mcp" });
      const s = await created(a.key, {});
      for (const other of [b.key, mcp.key]) {
        await expectError(await ctx.call(other, `/browser/${s.session_id}`), 404, "NOT_FOUND");
        await expectError(await remove(other, s.session_id), 404, "NOT_FOUND");
        for (const path of USAGE_PATHS) {
          expect((await usage(other, "", path)).items).toEqual([]);
          expect((await usage(other, `?session_id=${s.session_id}`, path)).total).toBe(0);
        }
      }
      // Their DELETEs ended nothing.
      expect((await getSession(a.key, s.session_id)).status).toBe("created");
      expect(host.ends.filter((e) => e.id === s.session_id)).toEqual([]);
    });

    it("DELETE of an unknown id → 404 NOT_FOUND", async () => {
      const { key } = await newKey();
      await expectError(await remove(key, "bs_00000000000000000000000000"), 404, "NOT_FOUND");
    });

    it("DELETE twice → 204, 204; the session then reads as ended with no URLs", async () => {
      const { key } = await newKey();
      const s = await created(key, {});
      ctx.clock.advance(42_000);
      for (let i = 0; i < 2; i++) {
        const res = await remove(key, s.session_id);
        expect(res.status).toBe(204);
        expect(await res.text()).toBe("");
      }
      expect(host.ends.filter((e) => e.id === s.session_id)).toEqual([{ id: s.session_id, reason: "deleted" }]);
      expect(await getSession(key, s.session_id)).toMatchObject({
        status: "ended",
        cdp_url: null,
        live_view_url: null,
        end_reason: "deleted",
        end_time: "2026-11-21T10:00:42.000Z",
        duration_ms: 42_000,
        proxy_trg_rx_bytes: END_BYTES.rx,
        proxy_trg_tx_bytes: END_BYTES.tx,
      });
    });

    it("DELETE of a session no host holds any more (its host restarted) still ends its row", async () => {
      const { key } = await newKey();
      const s = await created(key, {});
      host.forget(s.session_id);
      ctx.clock.advance(5_000);
      expect((await remove(key, s.session_id)).status).toBe(204);
      expect(await getSession(key, s.session_id)).toMatchObject({
        status: "ended",
        end_reason: "deleted",
        duration_ms: 5_000,
        cdp_url: null,
      });
    });
  });

  describe("limits (spec 8)", () => {
    it("plan free holds one open session: a second → 429 with Retry-After until the first ends, and the refusal is not counted", async () => {
      const { key, accountId, keyId } = await newKey("free");
      const first = await created(key, {});
      const res = await create(key, {});
      const body = await expectError(res, 429, "RATE_LIMIT_EXCEEDED");
      // A client that retries a full account as Retry-After says is not rate-limited for it.
      expect(await creationsThisMinute(keyId)).toBe(1);
      expect(body.error.message).toMatch(/1 open browser sessions.*most its plan allows is 1/);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(host.startsOf(accountId)).toHaveLength(1);
      expect((await remove(key, first.session_id)).status).toBe(204);
      await created(key, {});
    });

    it("plan free creates 5 sessions a minute per key: the 6th → 429 with Retry-After and X-RateLimit-Limit 5", async () => {
      const { key, accountId } = await newKey("free");
      ctx.clock.set("2026-11-21T10:05:00.000Z");
      for (let i = 0; i < 5; i++) {
        const s = await created(key, {});
        expect((await remove(key, s.session_id)).status).toBe(204);
        ctx.clock.advance(1_000);
      }
      ctx.clock.set("2026-11-21T10:05:20.000Z");
      const res = await create(key, {});
      await expectError(res, 429, "RATE_LIMIT_EXCEEDED");
      expect(res.headers.get("retry-after")).toBe("40");
      expect(res.headers.get("x-ratelimit-limit")).toBe("5");
      expect(host.startsOf(accountId)).toHaveLength(5);
      ctx.clock.set("2026-11-21T10:06:00.000Z");
      await created(key, {});
    });

    it("a busy host → 503 SERVICE_BUSY with Retry-After, and the session's row is ended, not left open", async () => {
      const { key, accountId, keyId } = await newKey("free");
      host.failNextStart(new SessionHostBusyError("no browser free"));
      const res = await create(key, {});
      await expectError(res, 503, "SERVICE_BUSY");
      expect(await creationsThisMinute(keyId)).toBe(0);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      const [launch] = host.startsOf(accountId);
      const page = await usage(key);
      expect(page.items).toMatchObject([{ session_id: launch?.id, status: "ended", end_time: T0, duration_ms: 0 }]);
      // The ended row does not hold plan free's one open slot.
      await created(key, {});
    });

    it("a host that fails to start → 503 whose message does not leak the failure", async () => {
      const { key, accountId } = await newKey();
      host.failNextStart(new Error("chromium died: /var/lib/osprey/secret-profile"));
      const res = await create(key, {});
      const body = await expectError(res, 503, "SERVICE_BUSY");
      expect(res.headers.get("retry-after")).not.toBeNull();
      expect(body.error.message).not.toMatch(/chromium died|secret-profile/);
      const [launch] = host.startsOf(accountId);
      expect((await usage(key, `?session_id=${launch?.id}`)).items).toMatchObject([{ status: "ended" }]);
    });
  });

  describe("usage listing (spec 2.4, 4.5)", () => {
    let key = "";
    let accountId = "";
    const ids: Record<"first" | "second" | "open" | "connected", string> = { first: "", second: "", open: "", connected: "" };

    // first 10:00–10:10, second 10:20–10:30, open created 10:40, connected created 10:50 and running.
    beforeAll(async () => {
      ({ key, accountId } = await newKey());
      ctx.clock.set("2026-11-21T10:00:00.000Z");
      ids.first = (await created(key, {})).session_id;
      ctx.clock.set("2026-11-21T10:10:00.000Z");
      await remove(key, ids.first);
      ctx.clock.set("2026-11-21T10:20:00.000Z");
      ids.second = (await created(key, { mode: "stealth" })).session_id;
      ctx.clock.set("2026-11-21T10:30:00.000Z");
      await remove(key, ids.second);
      ctx.clock.set("2026-11-21T10:40:00.000Z");
      ids.open = (await created(key, {})).session_id;
      ctx.clock.set("2026-11-21T10:50:00.000Z");
      ids.connected = (await created(key, {})).session_id;
      await sessionRepo(db.db).markConnected(ids.connected, new Date("2026-11-21T10:51:00.000Z"));
    });

    const order = (page: UsagePage) => page.items.map((i) => i.session_id);

    it("both paths answer the same page, newest first, every 2.4 field on every item", async () => {
      const [a, b] = await Promise.all(USAGE_PATHS.map((p) => ctx.call(key, p)));
      const [textA, textB] = [await a?.text(), await b?.text()];
      expect(a?.status).toBe(200);
      expect(textB).toBe(textA);
      const page = JSON.parse(textA ?? "") as UsagePage;
      expect(page).toMatchObject({ total: 4, limit: 100, page: 1, total_pages: 1, has_more: false });
      expect(order(page)).toEqual([ids.connected, ids.open, ids.second, ids.first]);
      for (const item of page.items) expect(Object.keys(item).sort()).toEqual(USAGE_FIELDS);
      expect(page.items[3]).toEqual({
        session_id: ids.first,
        user_id: accountId,
        sub_user_id: null,
        mode: "light",
        start_time: "2026-11-21T10:00:00.000Z",
        end_time: "2026-11-21T10:10:00.000Z",
        duration_ms: 600_000,
        proxy_trg_rx_bytes: END_BYTES.rx,
        proxy_trg_tx_bytes: END_BYTES.tx,
        status: "ended",
        created_at: "2026-11-21T10:00:00.000Z",
        updated_at: "2026-11-21T10:10:00.000Z",
      });
      expect(page.items[2]).toMatchObject({ mode: "stealth", duration_ms: 600_000 });
      expect(page.items[1]).toEqual({
        session_id: ids.open,
        user_id: accountId,
        sub_user_id: null,
        mode: "light",
        start_time: "2026-11-21T10:40:00.000Z",
        end_time: null,
        duration_ms: null,
        proxy_trg_rx_bytes: null,
        proxy_trg_tx_bytes: null,
        status: "created",
        created_at: "2026-11-21T10:40:00.000Z",
        updated_at: "2026-11-21T10:40:00.000Z",
      });
      expect(page.items[0]).toMatchObject({ status: "running", end_time: null, duration_ms: null });
    });

    // {name} in a query stands for that session's id.
    it.each<{ query: string; expected: (keyof typeof ids)[] }>([
      { query: "?session_id={second}", expected: ["second"] },
      { query: "?session_id=bs_unknown", expected: [] },
      { query: "?status=running", expected: ["connected", "open"] },
      { query: "?status=ended", expected: ["second", "first"] },
      { query: "?start_after=2026-11-21T10:15:00Z", expected: ["connected", "open", "second"] },
      { query: "?end_before=2026-11-21T10:20:00Z", expected: ["first"] },
      { query: "?end_before=2026-11-22", expected: ["second", "first"] },
      { query: "?start_after=2026-11-21T10:05:00Z&end_before=2026-11-21T10:35:00Z", expected: ["second"] },
      { query: "?status=running&session_id={first}", expected: [] },
    ])("filters: $query → $expected", async ({ query, expected }) => {
      const q = query.replace(/\{(\w+)\}/g, (_, name: keyof typeof ids) => ids[name]);
      for (const path of USAGE_PATHS) {
        const page = await usage(key, q, path);
        expect(order(page)).toEqual(expected.map((name) => ids[name]));
        expect(page.total).toBe(expected.length);
      }
    });

    it("paginates", async () => {
      expect(await usage(key, "?limit=3")).toMatchObject({ total: 4, limit: 3, page: 1, total_pages: 2, has_more: true });
      const p2 = await usage(key, "?limit=3&page=2");
      expect(p2).toMatchObject({ total: 4, limit: 3, page: 2, total_pages: 2, has_more: false });
      expect(order(p2)).toEqual([ids.first]);
      expect(await usage(key, "?limit=3&page=3")).toMatchObject({ items: [], total: 4, has_more: false });
      expect(order(await usage(key, "?limit=1&page=2"))).toEqual([ids.open]);
    });

    it.each([
      { query: "?limit=0", path: ["limit"] },
      { query: "?limit=1001", path: ["limit"] },
      { query: "?page=0", path: ["page"] },
      { query: "?status=created", path: ["status"] },
      { query: "?start_after=2026-02-30", path: ["start_after"] },
      { query: "?start_after=2026-11-21T11:00:00Z&end_before=2026-11-21T10:00:00Z", path: ["start_after"] },
      // Instants Postgres refuses to compare with a timestamptz (year 0000, past 9999 in UTC) were a 500.
      { query: "?start_after=0000-01-01", path: ["start_after"] },
      { query: "?start_after=0001-01-01T00:00%2B01:00", path: ["start_after"] },
      { query: "?end_before=9999-12-31T23:59-23:59", path: ["end_before"] },
      { query: "?created_after=2026-11-21", path: [] },
      { query: "?foo=1", path: [] },
    ])("$query → 400 INVALID_INPUT at $path", async ({ query, path }) => {
      for (const p of USAGE_PATHS) await expectInvalid(await ctx.call(key, `${p}${query}`), path);
    });
  });

  describe("OpenAPI", () => {
    it("/openapi.json documents every browser endpoint, and /browser/openapi.json exists", async () => {
      const res = await ctx.app.request("/openapi.json");
      expect(res.status).toBe(200);
      const doc = (await res.json()) as { paths: Record<string, Record<string, unknown>> };
      expect(Object.keys(doc.paths["/browser"] ?? {})).toContain("post");
      expect(Object.keys(doc.paths["/browser/{sessionId}"] ?? {})).toEqual(expect.arrayContaining(["get", "delete"]));
      expect(Object.keys(doc.paths["/browser/usage"] ?? {})).toContain("get");
      expect(Object.keys(doc.paths["/browser/v1/browser/usage"] ?? {})).toContain("get");
      // Without a key (the documents are public) and with one: the document, never GET /{sessionId}.
      for (const own of [await ctx.app.request("/browser/openapi.json"), await ctx.call(UNKNOWN_KEY, "/browser/openapi.json")]) {
        const text = await own.text();
        expect(own.status, text).toBe(200);
        const ownDoc = JSON.parse(text) as { paths: Record<string, Record<string, unknown>> };
        expect(Object.keys(ownDoc.paths).sort()).toEqual([
          "/",
          "/live/{token}/input",
          "/usage",
          "/v1/browser/usage",
          "/{sessionId}",
        ]);
      }
      // With a trailing slash the path is still public: served or 404, never the session handler's 500.
      expect([200, 404]).toContain((await ctx.app.request("/browser/openapi.json/")).status);
    });
  });
});
