import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LogFields, type Logger, silentLogger } from "../../functions/lib/logger.ts";
import { DOCUMENTS } from "../../functions/openapi/write-openapi.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { generateRequests } from "../helpers/fuzz.ts";
import { prng } from "../helpers/fuzz-inputs.ts";
import { type FuzzOperation, operationsOf, undocumentedOperations } from "../helpers/fuzz-operations.ts";
import {
  betweenRequests,
  createFuzzContext,
  describeRequest,
  type FuzzContext,
  fuzzKey,
  guardNetwork,
  runFuzz,
} from "../helpers/fuzz-run.ts";

/**
 * The fast, deterministic cut of `npm run bench -- fuzz`: a fixed seed, a few hundred hostile
 * requests spread over every operation of every surface. No answer may be a 5xx, and every error
 * must have the spec 7.1 shape. A failure names the request, so it can be replayed by hand.
 */
const SEED = 20261121;
const PER_OPERATION = 16;

/** SEED mixed with an operation's name (FNV-1a), as a 32-bit seed. */
function seedOf(name: string): number {
  let h = 0x811c9dc5 ^ SEED;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

describe.each(driverCases())("fuzzing every operation on $driver", ({ open }) => {
  let db: TestDatabase;
  let ctx: FuzzContext;
  let key: string;
  let operations: FuzzOperation[];
  // Installed per driver in beforeAll, not while the file is collected: three guards made at
  // collection nest, and each afterAll then put back the one before it, leaving a guard installed
  // for the next file in a reused worker (it refused resolve-public's non-loopback dials).
  let guard: ReturnType<typeof guardNetwork>;
  const serverErrors: { msg: string; fields: LogFields | undefined }[] = [];
  const logger: Logger = { ...silentLogger, error: (msg, fields) => serverErrors.push({ msg, fields }) };

  beforeAll(async () => {
    guard = guardNetwork();
    db = await open();
    ctx = createFuzzContext(db.db, logger);
    key = await fuzzKey(ctx);
    const docs = await Promise.all(Object.values(DOCUMENTS).map(async (p) => (await ctx.app.request(p)).json()));
    operations = [...operationsOf(docs), ...undocumentedOperations()];
  });
  afterAll(async () => {
    guard?.restore();
    await db?.dispose();
  });

  it("reads every surface's operations from the served OpenAPI documents", () => {
    const names = operations.map((o) => `${o.method} ${o.path}`);
    for (const expected of [
      "POST /v1/automation/run-async",
      "GET /v1/runs/{id}",
      "POST /fetch",
      "GET /search",
      "GET /search/usage",
      "POST /browser",
      "GET /browser/{sessionId}",
      "DELETE /browser/{sessionId}",
      "GET /browser/usage",
      "GET /browser/v1/browser/usage",
      "GET /browser/live/{token}",
      "GET /browser/live/{token}/state",
      "GET /browser/live/{token}/frame",
    ]) {
      expect(names).toContain(expected);
    }
  });

  it("answers hostile requests without a 5xx, with spec-shaped errors", async () => {
    // One stream per operation, seeded by its name: an operation added to a document does not
    // change the requests every operation after it gets.
    const requests = operations.flatMap((op) =>
      generateRequests(op, prng(seedOf(`${op.method} ${op.path}`)), { key, perOperation: PER_OPERATION, big: false }),
    );
    expect(requests.length).toBeGreaterThan(300);
    const report = await runFuzz(ctx.app, requests, { timeoutMs: 15_000, between: betweenRequests(ctx) });
    const failures = report.failures.map((f) => `${f.status} ${describeRequest(f.request)}: ${f.detail}`);
    expect(failures, JSON.stringify(serverErrors.slice(0, 3))).toEqual([]);
    expect(report.malformed.map((m) => `${m.status} ${describeRequest(m.request)}: ${m.detail}`)).toEqual([]);
    expect(guard.blocked).toEqual([]);
    // The mix must reach past authentication and validation, or the run proves little.
    expect(report.histogram["400"]).toBeGreaterThan(50);
    expect(report.histogram["200"]).toBeGreaterThan(10);
    // Every browser operation reaches its handler (the session service runs over a host double),
    // and the sessions the fuzzer opens do not fill the account so that creations turn into 429s.
    const browser = Object.entries(report.byOperation).filter(([op]) => op.includes(" /browser"));
    expect(browser.length).toBeGreaterThanOrEqual(8);
    for (const [op, statuses] of browser) {
      const success = Object.entries(statuses).filter(([s]) => s.startsWith("2"));
      expect(success.length, `${op}: ${JSON.stringify(statuses)}`).toBeGreaterThan(0);
      expect(statuses["429"] ?? 0, `${op}: ${JSON.stringify(statuses)}`).toBeLessThanOrEqual(1);
    }
  }, 120_000);
});
