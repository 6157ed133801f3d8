import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AppEnv } from "../../functions/http/app-env.ts";
import { composeApp, MAX_BODY_BYTES, type Surface } from "../../functions/http/compose.ts";
import { createRouter } from "../../functions/http/create-router.ts";
import { errorResponses, jsonBody } from "../../functions/http/openapi.ts";
import { defaultIds } from "../../functions/lib/ids.ts";
import { type LogFields, type Logger, silentLogger } from "../../functions/lib/logger.ts";
import { hashKey } from "../../functions/services/api-key.service.ts";
import { INTERNAL_ERROR_MESSAGE } from "../../schema/errors.ts";
import { createTestContext, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";

/** Spec 7.1 / 7.3 and the pagination rules of spec 8, through a test-only surface and the real app. */

const EchoBody = z
  .object({
    url: z.string().url(),
    goal: z.string().min(1),
    mode: z.enum(["lite", "stealth"]).optional(),
    count: z.number().int().optional(),
  })
  .strict();

/** A surface with the shapes no real endpoint has yet: a JSON POST, a throwing route, path params. */
function testSurface(): Surface {
  const app = createRouter();
  const json = (schema: z.ZodType) => ({ description: "ok", content: { "application/json": { schema } } });
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/echo",
      request: { body: jsonBody(EchoBody) },
      responses: { 200: json(EchoBody), ...errorResponses(400, 413) },
    }),
    (c) => c.json(c.req.valid("json"), 200),
  );
  app.openapi(
    createRoute({ method: "get", path: "/v1/boom", responses: { 200: json(z.object({})), ...errorResponses() } }),
    () => {
      throw new Error("secret internal detail xyz");
    },
  );
  const ItemParams = z.object({
    id: z
      .string()
      .regex(/^item_[a-z0-9]+$/)
      .openapi({ param: { name: "id", in: "path" } }),
  });
  const ItemQuery = z.object({ verbose: z.enum(["true", "false"]).optional() });
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/items/{id}",
      request: { params: ItemParams, query: ItemQuery },
      responses: { 200: json(z.object({ id: z.string() })), ...errorResponses(400) },
    }),
    (c) => c.json({ id: c.req.valid("param").id }, 200),
  );
  return { name: "agent", title: "test API", prefix: "", app, available: true };
}

async function expectError(res: Response, status: number, code: string) {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/json\b/);
  const body = JSON.parse(text);
  expect(Object.keys(body).sort()).toEqual(["error", "request_id"]);
  expect(Object.keys(body.error).sort()).toEqual(
    status === 400 && body.error.details ? ["code", "details", "message"] : ["code", "message"],
  );
  expect(body.error.code).toBe(code);
  expect(body.error.message).toEqual(expect.any(String));
  expect(body.request_id).toMatch(/^req_/);
  expect(res.headers.get("x-request-id")).toBe(body.request_id);
  return { body, text };
}

const VALID = { url: "https://example.com/a", goal: "read the page" };
const enc = (s: string) => new TextEncoder().encode(s);
type Body = RequestInit["body"];

describe.each(driverCases())("errors and pagination on $driver", ({ open }) => {
  let db: TestDatabase;
  let ctx: TestContext;
  let app: OpenAPIHono<AppEnv>;
  let key: string;
  const logged: { msg: string; fields: LogFields | undefined }[] = [];
  const logger: Logger = { ...silentLogger, error: (msg, fields) => logged.push({ msg, fields }) };

  beforeAll(async () => {
    db = await open();
    ctx = createTestContext(db.db);
    app = composeApp({ ids: defaultIds, logger, apiKeys: ctx.services.apiKeys, version: "test" }, [testSurface()]);
    key = (await ctx.newKey()).key;
  });
  afterAll(() => db.dispose());

  const req = async (path: string, init: { method?: string; headers?: Record<string, string>; body?: Body } = {}) =>
    app.request(path, { ...init, headers: { "x-api-key": key, ...init.headers } });
  const postEcho = (body: Body | undefined, contentType?: string) =>
    req("/v1/echo", {
      method: "POST",
      headers: contentType ? { "content-type": contentType } : {},
      ...(body === undefined ? {} : { body }),
    });

  describe("JSON bodies", () => {
    it.each(["application/json", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8"])(
      "accepts Content-Type %s",
      async (type) => {
        const res = await postEcho(JSON.stringify({ ...VALID, mode: "lite", count: 3 }), type);
        expect(res.status, await res.clone().text()).toBe(200);
        expect(await res.json()).toEqual({ ...VALID, mode: "lite", count: 3 });
        expect(res.headers.get("x-request-id")).toMatch(/^req_/);
      },
    );

    it.each([
      { name: "malformed JSON", body: '{"url": "https://x.y", ', type: "application/json", message: /not valid JSON/ },
      { name: "an empty JSON body", body: "", type: "application/json", message: /not valid JSON/ },
      { name: "a body without Content-Type", body: enc(JSON.stringify(VALID)), type: undefined, message: /Content-Type/ },
      { name: "text/plain", body: JSON.stringify(VALID), type: "text/plain", message: /Content-Type/ },
      { name: "a form body", body: "url=https://x.y&goal=g", type: "application/x-www-form-urlencoded", message: /Content-Type/ },
    ])("rejects $name with 400 INVALID_INPUT", async ({ body, type, message }) => {
      const { body: err } = await expectError(await postEcho(body, type), 400, "INVALID_INPUT");
      expect(err.error.message).toMatch(message);
    });

    it("rejects a POST with neither body nor Content-Type with 400 details naming the required fields", async () => {
      const { body } = await expectError(await postEcho(undefined), 400, "INVALID_INPUT");
      expect(body.error.details.map((d: { path: string[] }) => d.path)).toEqual([["url"], ["goal"]]);
    });
  });

  describe("body size limit (1 MiB)", () => {
    /** A valid echo body of exactly `size` bytes. */
    const bodyOfSize = (size: number) => {
      const shell = JSON.stringify({ ...VALID, goal: "" });
      return JSON.stringify({ ...VALID, goal: "g".repeat(size - shell.length) });
    };

    it("accepts a body of exactly MAX_BODY_BYTES", async () => {
      const body = bodyOfSize(MAX_BODY_BYTES);
      expect(body.length).toBe(MAX_BODY_BYTES);
      expect((await postEcho(body, "application/json")).status).toBe(200);
    });

    it.each([
      { name: "one byte over, streamed", size: MAX_BODY_BYTES + 1, declare: false },
      { name: "one byte over, with Content-Length", size: MAX_BODY_BYTES + 1, declare: true },
      { name: "5 MiB", size: 5 * MAX_BODY_BYTES, declare: false },
    ])("answers 413 INVALID_INPUT for $name", async ({ size, declare }) => {
      const body = bodyOfSize(size);
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (declare) headers["content-length"] = String(body.length);
      const { body: err } = await expectError(await req("/v1/echo", { method: "POST", headers, body }), 413, "INVALID_INPUT");
      expect(err.error.message).toMatch(/1 MiB|too large/);
    });
  });

  describe("404 and 405", () => {
    it.each([
      ["GET", "/v1/nope"],
      ["POST", "/v2/echo"],
      ["GET", "/v1/items"],
      ["GET", "/v1/items/item_1/extra"],
    ])("%s %s → 404 NOT_FOUND without Allow", async (method, path) => {
      const res = await req(path, { method });
      expect(res.headers.get("allow")).toBeNull();
      await expectError(res, 404, "NOT_FOUND");
    });

    it.each([
      { method: "DELETE", path: "/v1/echo", allow: "POST" },
      { method: "GET", path: "/v1/echo", allow: "POST" },
      { method: "PUT", path: "/v1/items/item_1", allow: "GET, HEAD" },
      { method: "POST", path: "/v1/boom", allow: "GET, HEAD" },
    ])("$method $path → 405 NOT_FOUND with Allow: $allow", async ({ method, path, allow }) => {
      const res = await req(path, { method });
      expect(res.headers.get("allow")).toBe(allow);
      const { body } = await expectError(res, 405, "NOT_FOUND");
      expect(body.error.message).toContain(allow);
    });

    it.each([
      { method: "POST", path: "/v1/account" },
      { method: "DELETE", path: "/v1/api-keys" },
      { method: "PUT", path: "/v1/account" },
    ])("on the real app, $method $path → 405 with Allow: GET, HEAD", async ({ method, path }) => {
      const res = await ctx.call(key, path, { method });
      expect(res.headers.get("allow")).toBe("GET, HEAD");
      await expectError(res, 405, "NOT_FOUND");
    });

    it("HEAD on a GET route is served, as Allow promises", async () => {
      const res = await ctx.call(key, "/v1/account", { method: "HEAD" });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    });

    // A 405 whose Allow header lists the very method that was refused contradicts itself.
    it.each([
      { path: "/v1/account/", withKey: true },
      { path: "/v1/api-keys/", withKey: true },
      { path: "/openapi.json/", withKey: false },
      { path: "/docs/", withKey: false },
    ])("GET $path (trailing slash) is served or 404, never a 405 that allows GET", async ({ path, withKey }) => {
      const res = withKey ? await ctx.call(key, path) : await ctx.app.request(path);
      const detail = `${res.status} Allow: ${res.headers.get("allow")} ${await res.clone().text()}`;
      expect([200, 404], detail).toContain(res.status);
    });
  });

  describe("unexpected errors", () => {
    beforeEach(() => {
      logged.length = 0;
    });

    it("a thrown error is a 500 INTERNAL_ERROR that echoes nothing internal, and is logged", async () => {
      const { body, text } = await expectError(await req("/v1/boom"), 500, "INTERNAL_ERROR");
      expect(body.error.message).toBe(INTERNAL_ERROR_MESSAGE);
      expect(text).not.toMatch(/secret internal detail|xyz|stack|Error:/);
      expect(logged).toHaveLength(1);
      expect(logged[0]?.fields).toMatchObject({ request_id: body.request_id, method: "GET", path: "/v1/boom" });
      const cause = logged[0]?.fields?.error;
      expect(cause).toBeInstanceOf(Error);
      expect((cause as Error).message).toBe("secret internal detail xyz");
    });

    it("client errors are not logged as failures", async () => {
      await req("/v1/nope");
      await postEcho("{", "application/json");
      expect(logged).toEqual([]);
    });
  });

  describe("validation details", () => {
    const SECRET = "sk_live_do_not_echo_me";
    type Expect = Record<string, unknown> & { path: (string | number)[]; code: string };
    it.each<{ name: string; send: () => Promise<Response>; details: Expect[]; location: string }>([
      {
        name: "missing required fields",
        send: () => postEcho("{}", "application/json"),
        location: "body",
        details: [
          { code: "invalid_type", path: ["url"], expected: "string" },
          { code: "invalid_type", path: ["goal"], expected: "string" },
        ],
      },
      {
        name: "a value outside an enum",
        send: () => postEcho(JSON.stringify({ ...VALID, mode: SECRET }), "application/json"),
        location: "body",
        details: [{ code: "invalid_value", path: ["mode"], values: ["lite", "stealth"] }],
      },
      {
        name: "a wrong type",
        send: () => postEcho(JSON.stringify({ ...VALID, count: "3" }), "application/json"),
        location: "body",
        details: [{ code: "invalid_type", path: ["count"], expected: "number" }],
      },
      {
        name: "a non-integer",
        send: () => postEcho(JSON.stringify({ ...VALID, count: 1.5 }), "application/json"),
        location: "body",
        details: [{ code: "invalid_type", path: ["count"], expected: "int" }],
      },
      {
        name: "an invalid URL and an empty goal",
        send: () => postEcho(JSON.stringify({ url: SECRET, goal: "" }), "application/json"),
        location: "body",
        details: [
          { code: "invalid_format", path: ["url"], format: "url" },
          { code: "too_small", path: ["goal"], minimum: 1 },
        ],
      },
      {
        name: "an unknown field in a strict object",
        send: () => postEcho(JSON.stringify({ ...VALID, [SECRET]: 1 }), "application/json"),
        location: "body",
        details: [{ code: "unrecognized_keys", path: [], keys: [SECRET] }],
      },
      {
        name: "a JSON array instead of an object",
        send: () => postEcho("[1,2]", "application/json"),
        location: "body",
        details: [{ code: "invalid_type", path: [], expected: "object" }],
      },
      {
        name: "a bad path parameter",
        send: () => req(`/v1/items/${SECRET}`),
        location: "path",
        details: [{ code: "invalid_format", path: ["id"], format: "regex" }],
      },
      {
        name: "a bad query parameter",
        send: () => req(`/v1/items/item_1?verbose=${SECRET}`),
        location: "query",
        details: [{ code: "invalid_value", path: ["verbose"], values: ["true", "false"] }],
      },
    ])("$name → 400 with details in $location", async ({ send, details, location }) => {
      const { body, text } = await expectError(await send(), 400, "INVALID_INPUT");
      const got = body.error.details as Record<string, unknown>[];
      expect(got).toHaveLength(details.length);
      got.forEach((d, i) => {
        expect(d).toMatchObject({ ...details[i], location, message: expect.any(String) });
        expect(Array.isArray(d.path)).toBe(true);
        expect(d).not.toHaveProperty("input");
        if (d.code === "invalid_type") expect(d.expected).toEqual(expect.any(String));
        if (d.code === "invalid_value") expect(d.values).toEqual(expect.any(Array));
      });
      expect(body.error.message).toContain(`${location}.${(details[0]?.path ?? []).join(".")}`.replace(/\.$/, ""));
      // The rejected input is never echoed (it might be a secret), except a key name the caller must fix.
      if (!details.some((d) => d.code === "unrecognized_keys")) expect(text).not.toContain(SECRET);
    });
  });

  it("every response carries a distinct X-Request-ID, equal to request_id on errors", async () => {
    const responses = await Promise.all([
      postEcho(JSON.stringify(VALID), "application/json"),
      req("/v1/items/item_1"),
      postEcho("{}", "application/json"),
      req("/v1/nope"),
      req("/v1/echo", { method: "DELETE" }),
      req("/v1/boom"),
      app.request("/v1/items/item_1"),
      app.request("/openapi.json"),
      app.request("/healthz"),
    ]);
    const ids = responses.map((r) => r.headers.get("x-request-id"));
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-z]{26}$/);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of responses.filter((r) => r.status >= 400)) {
      expect(((await r.json()) as { request_id: string }).request_id).toBe(r.headers.get("x-request-id"));
    }
    expect(responses.map((r) => r.status)).toEqual([200, 200, 400, 404, 405, 500, 401, 200, 200]);
  });

  describe("pagination (GET /v1/api-keys on the real app)", () => {
    it.each([
      ["limit=0", "limit"],
      ["limit=1001", "limit"],
      ["limit=-1", "limit"],
      ["limit=abc", "limit"],
      ["limit=1.5", "limit"],
      ["limit=", "limit"],
      ["limit=2&limit=3", "limit"],
      ["page=0", "page"],
      ["page=-3", "page"],
      ["page=x", "page"],
    ])("?%s → 400 INVALID_INPUT with details on %s", async (query, field) => {
      const { body } = await expectError(await ctx.call(key, `/v1/api-keys?${query}`), 400, "INVALID_INPUT");
      expect(body.error.details.length).toBeGreaterThan(0);
      for (const d of body.error.details) {
        expect(d).toMatchObject({ path: [field], location: "query", code: expect.any(String), message: expect.any(String) });
      }
    });

    it("defaults to limit 100, page 1 and accepts the bounds", async () => {
      const res = await ctx.call(key, "/v1/api-keys");
      expect(await res.json()).toMatchObject({ limit: 100, page: 1, total: 1, total_pages: 1, has_more: false });
      const max = await (await ctx.call(key, "/v1/api-keys?limit=1000&page=1")).json();
      expect(max).toMatchObject({ limit: 1000, page: 1 });
    });

    it("pages through one account's keys, newest first, without secrets or other accounts' keys", async () => {
      const own = createTestContext(db.db);
      const first = await own.newKey();
      const secrets = [first.key];
      for (let i = 0; i < 4; i++) {
        own.clock.advance(1000);
        secrets.push((await own.services.apiKeys.create({ accountId: first.accountId, name: `k${i}` })).key);
      }
      const other = await own.newKey();
      await own.services.apiKeys.create({ accountId: other.accountId });

      const pages = [];
      for (const page of [1, 2, 3, 4]) {
        const res = await own.call(first.key, `/v1/api-keys?limit=2&page=${page}`);
        expect(res.status).toBe(200);
        const text = await res.text();
        for (const s of secrets) {
          expect(text).not.toContain(s);
          expect(text).not.toContain(hashKey(s));
        }
        expect(text).not.toMatch(/key_?hash|secret/i);
        pages.push(JSON.parse(text));
      }
      expect(pages.map(({ items, ...meta }) => ({ ...meta, n: items.length }))).toEqual([
        { total: 5, limit: 2, page: 1, total_pages: 3, has_more: true, n: 2 },
        { total: 5, limit: 2, page: 2, total_pages: 3, has_more: true, n: 2 },
        { total: 5, limit: 2, page: 3, total_pages: 3, has_more: false, n: 1 },
        { total: 5, limit: 2, page: 4, total_pages: 3, has_more: false, n: 0 },
      ]);
      const items = pages.flatMap((p) => p.items);
      const rows = await own.services.apiKeys.listAll(first.accountId);
      expect(items.map((i) => i.id)).toEqual(rows.map((r) => r.id).reverse());
      expect(items.map((i) => i.created_at)).toEqual([...items.map((i) => i.created_at)].sort().reverse());
      const otherIds = (await own.services.apiKeys.listAll(other.accountId)).map((r) => r.id);
      for (const item of items) {
        expect(otherIds).not.toContain(item.id);
        expect(Object.keys(item).sort()).toEqual(
          ["created_at", "expires_at", "id", "last_used_at", "name", "prefix", "revoked_at", "scope", "sub_user_id"].sort(),
        );
        expect(secrets.some((s) => s.startsWith(item.prefix))).toBe(true);
      }
    });
  });
});
