import { expect } from "vitest";
import type { Db } from "../../functions/db/db.ts";
import { createPgQueue } from "../../functions/queue/pg-queue.ts";
import type { Plan } from "../../schema/plans.ts";
import { createTestContext, type TestContext } from "../helpers/app.ts";

/** Shared pieces of the run-admission tests (spec 4.1, 4.2, 5, 7.1, 7.3, 8, 9.4). */

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely in these tests
export type Json = Record<string, any>;

export const VALID = { url: "https://example.com/start", goal: "Find the price of the cheapest plan" };

/** A context whose runs are accepted and stay PENDING: a real queue, a model, and no worker. */
export function acceptingContext(db: Db): TestContext {
  return createTestContext(db, { runs: acceptingRuns(db) });
}

/** The run adapters of acceptingContext: a real queue and a model (never called: no worker). */
export const acceptingRuns = (db: Db) => ({
  queue: createPgQueue({ db }),
  model: { provider: "openai" as const, baseUrl: "http://127.0.0.1:9/v1", model: "m", apiKey: null },
});

/** A key of a new account on `plan` with `credits` (default 1000). */
export async function fundedKey(
  ctx: TestContext,
  opts: { plan?: Plan; entitlements?: string[]; credits?: number } = {},
): Promise<{ key: string; accountId: string; keyId: string }> {
  const k = await ctx.newKey({ plan: opts.plan ?? "pro", entitlements: opts.entitlements ?? [] });
  const credits = opts.credits ?? 1000;
  if (credits > 0) await ctx.services.accounts.addCredits(k.accountId, credits);
  return k;
}

/** Spec 7.1: status, error.code, a message, request_id in the body and the X-Request-ID header. */
export async function expectError(res: Response, status: number, code: string): Promise<Json> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/json\b/);
  const body = JSON.parse(text) as Json;
  expect(body.error.code, text).toBe(code);
  expect(body.error.message).toEqual(expect.any(String));
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(body.request_id).toMatch(/^req_/);
  expect(res.headers.get("x-request-id")).toBe(body.request_id);
  return body;
}

/** 400 INVALID_INPUT whose details include an issue at exactly `path`. */
export async function expectInvalid(res: Response, path: (string | number)[]): Promise<Json> {
  const body = await expectError(res, 400, "INVALID_INPUT");
  expect(Array.isArray(body.error.details), JSON.stringify(body)).toBe(true);
  const paths = body.error.details.map((d: Json) => d.path);
  expect(paths, JSON.stringify(body.error.details)).toContainEqual(path);
  for (const d of body.error.details) {
    expect(d.code).toEqual(expect.any(String));
    expect(d.message).toEqual(expect.any(String));
  }
  return body;
}

export async function okJson(res: Response): Promise<Json> {
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as Json;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
