import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { LIVE_KEYS } from "../../functions/sessions/live-input.schemas.ts";
import type { SessionWire } from "../../functions/sessions/session.wire.ts";
import { createTestContext, TestClock, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { SessionHostDouble, sessionsOver } from "../helpers/session-host-double.ts";

/**
 * POST {browser_url}/live/{token}/input over HTTP (the live view's input, issue 13's setup session):
 * what the body may be, what each refusal looks like, the token as the only credential, the limit
 * per live view, and how the host's outcomes are answered. The host is the port double, which
 * records the events it got; the real host and Chromium are covered in live-input.test.ts.
 */

const T0 = "2026-11-21T10:00:00.000Z";

interface ErrorBody {
  error: {
    code: string;
    message: string;
    details?: { code: string; path: (string | number)[]; message: string; values?: unknown[]; location?: string }[];
  };
  request_id: string;
}

describe.each(driverCases(["pglite", "pg"]))("live view input API on $driver", ({ open }) => {
  let db: TestDatabase;
  let ctx: TestContext;
  let host: SessionHostDouble;
  /** The key of the account open_() made last. */
  let key = "";

  const input = (token: string, body: unknown, init: RequestInit = {}) =>
    ctx.app.request(`/browser/live/${token}/input`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
      ...init,
    });
  /** An open session of an account of its own (each account may hold 10 at once). */
  const open_ = async (): Promise<SessionWire & { token: string }> => {
    ({ key } = await ctx.newKey({ plan: "pro" }));
    const res = await ctx.postJson(key, "/browser", {});
    expect(res.status, await res.clone().text()).toBe(201);
    const s = (await res.json()) as SessionWire;
    return { ...s, token: new URL(s.live_view_url as string).pathname.split("/").at(-1) as string };
  };
  const refused = async (res: Response, status: number, code: string): Promise<ErrorBody> => {
    const text = await res.text();
    expect(res.status, text).toBe(status);
    const body = JSON.parse(text) as ErrorBody;
    expect(body.error.code).toBe(code);
    expect(res.headers.get("x-request-id")).toBe(body.request_id);
    return body;
  };
  const eventsOf = (id: string) => host.inputs.filter((i) => i.id === id).map((i) => i.event);

  beforeAll(async () => {
    db = await open();
    const clock = new TestClock();
    host = new SessionHostDouble(db.db, clock);
    ctx = createTestContext(db.db, { clock, sessions: sessionsOver(host) });
  });
  afterAll(async () => {
    await db.dispose();
  });
  beforeEach(() => {
    ctx.clock.set(T0);
    host.inputResult = "done";
  });

  it("each kind of event → 204 without an API key; the host gets it validated, with defaults filled in", async () => {
    const s = await open_();
    const events = [
      { type: "click", x: 10.5, y: 20 },
      { type: "click", x: 0, y: 0, button: "right", click_count: 2, modifiers: ["Control", "Shift"] },
      { type: "scroll", x: 100, y: 100, dy: 400 },
      { type: "type", text: "pässwörd ✓ 🔑" },
      ...LIVE_KEYS.map((k) => ({ type: "key", key: k })),
      { type: "key", key: "Tab", modifiers: ["Shift"] },
      { type: "navigate", url: "https://example.com/login?next=%2F" },
      { type: "history", action: "back" },
      { type: "history", action: "forward" },
      { type: "history", action: "reload" },
    ];
    for (const e of events) {
      const res = await input(s.token, e);
      expect(res.status, `${JSON.stringify(e)}: ${await res.text()}`).toBe(204);
      expect(res.headers.get("cache-control")).toBe("no-store");
    }
    const got = eventsOf(s.session_id);
    expect(got).toHaveLength(events.length);
    expect(got[0]).toEqual({ type: "click", x: 10.5, y: 20, button: "left", click_count: 1 });
    expect(got[2]).toEqual({ type: "scroll", x: 100, y: 100, dx: 0, dy: 400 });
    expect(got[3]).toEqual({ type: "type", text: "pässwörd ✓ 🔑" });
  });

  it.each([
    { name: "no type", body: { x: 1, y: 1 }, path: ["type"] },
    { name: "an unknown type", body: { type: "drag", x: 1, y: 1 }, path: ["type"] },
    { name: "a click without y", body: { type: "click", x: 1 }, path: ["y"] },
    { name: "a coordinate as text", body: { type: "click", x: "1", y: 1 }, path: ["x"] },
    { name: "a negative coordinate", body: { type: "scroll", x: -5, y: 1, dy: 1 }, path: ["x"] },
    { name: "a coordinate past the largest viewport", body: { type: "click", x: 1, y: 5000 }, path: ["y"] },
    { name: "a wheel delta past 10000", body: { type: "scroll", x: 1, y: 1, dy: 10_001 }, path: ["dy"] },
    { name: "an unknown button", body: { type: "click", x: 1, y: 1, button: "back" }, path: ["button"] },
    { name: "click_count 4", body: { type: "click", x: 1, y: 1, click_count: 4 }, path: ["click_count"] },
    { name: "an extra field", body: { type: "click", x: 1, y: 1, selector: "#user" }, path: [] },
    { name: "empty text", body: { type: "type", text: "" }, path: ["text"] },
    { name: "text of 1001 characters", body: { type: "type", text: "x".repeat(1001) }, path: ["text"] },
    { name: "a key outside the list", body: { type: "key", key: "F12" }, path: ["key"] },
    { name: "a printable key", body: { type: "key", key: "a" }, path: ["key"] },
    { name: "an unknown modifier", body: { type: "key", key: "Tab", modifiers: ["Hyper"] }, path: ["modifiers", 0] },
    { name: "a file: URL", body: { type: "navigate", url: "file:///etc/passwd" }, path: ["url"] },
    { name: "a javascript: URL", body: { type: "navigate", url: "javascript:alert(1)" }, path: ["url"] },
    { name: "a data: URL", body: { type: "navigate", url: "data:text/html,<h1>x</h1>" }, path: ["url"] },
    { name: "a chrome: URL", body: { type: "navigate", url: "chrome://settings" }, path: ["url"] },
    { name: "a relative URL", body: { type: "navigate", url: "/login" }, path: ["url"] },
    { name: "a URL of 2049 characters", body: { type: "navigate", url: `https://e.com/${"a".repeat(2035)}` }, path: ["url"] },
    { name: "an unknown history action", body: { type: "history", action: "up" }, path: ["action"] },
  ])("$name → 400 INVALID_INPUT at $path, and the host gets nothing", async ({ body, path }) => {
    const s = await open_();
    const err = await refused(await input(s.token, body), 400, "INVALID_INPUT");
    expect(err.error.details?.map((d) => d.path)).toContainEqual(path);
    expect(err.error.details?.every((d) => d.location === "body")).toBe(true);
    expect(eventsOf(s.session_id)).toEqual([]);
  });

  it("a key outside the list is answered with the list", async () => {
    const s = await open_();
    const err = await refused(await input(s.token, { type: "key", key: "F5" }), 400, "INVALID_INPUT");
    expect(err.error.details?.[0]?.values).toEqual([...LIVE_KEYS]);
  });

  it("a body that is not JSON, or sent as text/plain → 400", async () => {
    const s = await open_();
    await refused(await input(s.token, "{not json"), 400, "INVALID_INPUT");
    await refused(
      await input(s.token, { type: "history", action: "reload" }, { headers: { "content-type": "text/plain" } }),
      400,
      "INVALID_INPUT",
    );
    expect(eventsOf(s.session_id)).toEqual([]);
  });

  it("an address the policy refuses (private, loopback, metadata, credentials) → 400 at url before the browser tries", async () => {
    const s = await open_();
    for (const url of [
      "http://169.254.169.254/latest/meta-data/",
      "http://127.0.0.1:8080/",
      "http://[::1]/",
      "http://10.0.0.1/",
      "https://user:pw@example.com/",
    ]) {
      const err = await refused(await input(s.token, { type: "navigate", url }), 400, "INVALID_INPUT");
      expect(err.error.details?.map((d) => d.path)).toEqual([["url"]]);
    }
    expect(eventsOf(s.session_id)).toEqual([]);
  });

  it("an unknown or malformed token, an ended session, and a session no host holds → 404", async () => {
    for (const token of ["Z".repeat(32), "short", "a-b".repeat(11)]) {
      await refused(await input(token, { type: "history", action: "reload" }), 404, "NOT_FOUND");
    }
    const ended = await open_();
    expect((await ctx.call(key, `/browser/${ended.session_id}`, { method: "DELETE" })).status).toBe(204);
    await refused(await input(ended.token, { type: "history", action: "reload" }), 404, "NOT_FOUND");
    // Validation comes first: a bad body is 400 whatever the token.
    await refused(await input(ended.token, { type: "key", key: "F5" }), 400, "INVALID_INPUT");

    const orphan = await open_();
    host.forget(orphan.session_id);
    await refused(await input(orphan.token, { type: "history", action: "reload" }), 404, "NOT_FOUND");
  });

  it("the host's other outcomes: no tab open → 404 saying navigate opens one; its holder unreachable → 503 with Retry-After", async () => {
    const s = await open_();
    host.inputResult = "no_page";
    const noPage = await refused(await input(s.token, { type: "click", x: 1, y: 1 }), 404, "NOT_FOUND");
    expect(noPage.error.message).toMatch(/navigate opens one/);
    host.inputResult = "unreachable";
    const res = await input(s.token, { type: "click", x: 1, y: 1 });
    expect(res.headers.get("retry-after")).toBe("1");
    const busy = await refused(res, 503, "SERVICE_BUSY");
    expect(busy.error.message).not.toMatch(/127\.0\.0\.1|fetch|ECONN/);
  });

  it("50 events a second per live view: the 51st at once → 429 with Retry-After; a second later it goes; another view is unaffected", async () => {
    const [s, other] = [await open_(), await open_()];
    const event = { type: "scroll", x: 1, y: 1, dy: 1 };
    for (let i = 0; i < 50; i++) expect((await input(s.token, event)).status).toBe(204);
    const limited = await input(s.token, event);
    expect(limited.headers.get("retry-after")).toBe("1");
    await refused(limited, 429, "RATE_LIMIT_EXCEEDED");
    expect((await input(other.token, event)).status).toBe(204);
    ctx.clock.advance(100);
    // 100 ms gives back 5.
    for (let i = 0; i < 5; i++) expect((await input(s.token, event)).status).toBe(204);
    expect((await input(s.token, event)).status).toBe(429);
    ctx.clock.advance(1000);
    expect((await input(s.token, event)).status).toBe(204);
    expect(eventsOf(s.session_id)).toHaveLength(56);
  });

  it("the input route is documented as public (no X-API-Key, no 401)", async () => {
    const doc = (await (await ctx.app.request("/browser/openapi.json")).json()) as {
      paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>>;
    };
    const op = doc.paths["/live/{token}/input"]?.post;
    expect(op?.security).toEqual([]);
    expect(Object.keys(op?.responses ?? {}).sort()).toEqual(["204", "400", "404", "429", "500", "503"]);
  });

  it("the session's live page carries the controls under the strict policy", async () => {
    const s = await open_();
    const page = await ctx.app.request(`/browser/live/${s.token}`);
    expect(page.status).toBe(200);
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain("unsafe-inline");
    const text = await page.text();
    expect(text).toContain('id="url"');
    expect(text).toContain('"/input"');
    // No inline handlers: the policy would block them.
    expect(text).not.toMatch(/\son[a-z]+=/);
  });
});
