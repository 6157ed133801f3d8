import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENT_REQUEST_ID } from "../../functions/http/middleware/request-id.ts";
import { createTestContext, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";

/** A client's well-formed X-Request-ID is kept and echoed (header and error body); others are replaced. */

describe.each(driverCases(["pglite"]))("X-Request-ID on $driver", ({ open }) => {
  let database: TestDatabase;
  let ctx: TestContext;
  let key: string;

  beforeAll(async () => {
    database = await open();
    ctx = createTestContext(database.db);
    ({ key } = await ctx.newKey());
  });
  afterAll(() => database?.dispose());

  /** A 2xx (GET /v1/account) and an error (401: no key) sent with `id`; both answers' ids. */
  async function ids(id?: string): Promise<{ ok: string | null; err: string | null; body: string }> {
    const headers: Record<string, string> = id === undefined ? {} : { "x-request-id": id };
    const ok = await ctx.call(key, "/v1/account", { headers });
    expect(ok.status).toBe(200);
    const err = await ctx.app.request("/v1/account", { headers });
    expect(err.status).toBe(401);
    const body = (await err.json()) as { request_id: string };
    expect(err.headers.get("x-request-id")).toBe(body.request_id);
    return { ok: ok.headers.get("x-request-id"), err: err.headers.get("x-request-id"), body: body.request_id };
  }

  it.each([
    ["a UUID", "0b9e6c2e-4f4b-4c57-9d0e-2f0c8a6b1e77"],
    ["a trace id with dots and colons", "trace:abc.DEF_12-3"],
    ["one character", "x"],
    ["128 characters", "a".repeat(128)],
  ])("keeps %s", async (_name, id) => {
    expect(CLIENT_REQUEST_ID.test(id)).toBe(true);
    expect(await ids(id)).toEqual({ ok: id, err: id, body: id });
  });

  it.each([
    ["empty", ""],
    ["129 characters", "a".repeat(129)],
    ["a space", "abc def"],
    ["a quote", 'abc"def'],
    ["a slash", "abc/def"],
    ["non-ASCII", "réq"],
  ])("replaces one that is %s with a generated id", async (_name, id) => {
    const got = await ids(id);
    expect(got.ok).toMatch(/^req_/);
    expect(got.err).toMatch(/^req_/);
    expect(got.body).toBe(got.err);
  });

  it("generates a fresh id for each request without one", async () => {
    const a = await ids();
    const b = await ids();
    expect(a.ok).toMatch(/^req_/);
    expect(a.err).toMatch(/^req_/);
    expect(new Set([a.ok, a.err, b.ok, b.err]).size).toBe(4);
  });
});
