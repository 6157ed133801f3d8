import { randomBytes } from "node:crypto";
/**
 * The app under test, sending the fuzzer's requests (fuzz.ts builds them) to it and judging the
 * answers: no 5xx, and every error in the spec 7.1 shape; and the guard that keeps a run on loopback.
 */
import net from "node:net";
import { PROXY_COUNTRIES } from "../../functions/config/config-browser.ts";
import type { Db } from "../../functions/db/db.ts";
import type { Logger } from "../../functions/lib/logger.ts";
import { profileService } from "../../functions/profiles/profile.service.ts";
import { profileStore } from "../../functions/profiles/profile.store.ts";
import { sessionRepo } from "../../functions/sessions/session.repo.ts";
import { SESSION_LIMITS } from "../../functions/sessions/session.schemas.ts";
import { createKeyring, VaultKey } from "../../functions/vault/crypto.ts";
import { vaultService } from "../../functions/vault/vault.service.ts";
import { ENTITLEMENTS } from "../../schema/plans.ts";
import { createTestContext, TestClock, type TestContext } from "./app.ts";
import type { FuzzRequest } from "./fuzz.ts";
import { LIVE_TOKEN } from "./fuzz-operations.ts";
import { SessionHostDouble, sessionsOver } from "./session-host-double.ts";

// --- the app under test ----------------------------------------------------------------------

/** The only origin bodies may name: loopback, on the discard port, where nothing answers. */
const LOCAL_ORIGIN = { host: "127.0.0.1", port: 9 };

/** The {sessionId} example of the browser document: the fuzz key owns a session with this id, so GET and DELETE reach a row. */
export const FUZZ_SESSION_ID = "bs_01jd8q3x6f0000000000000000";
/** A second session of the fuzz key, whose connect token is LIVE_TOKEN: the browser live view's plausible requests reach it. */
export const LIVE_SESSION_ID = "bs_01jd8q3x6f0000000000000001";

export interface FuzzContext extends TestContext {
  db: Db;
  /** The SessionHost port double the browser session API runs over: no browser is ever launched. */
  sessionHost: SessionHostDouble;
}

/**
 * The in-process app as the fuzzer drives it. So that hostile bodies reach the code that stores
 * them (run requests in jsonb, fetch usage rows, browser session rows), 127.0.0.1:9 is an allowed
 * host, a model is configured, every proxy country has an upstream and the browser session API
 * runs over a double of its host port; but there is no queue and no worker, so an admitted run
 * fails at once without ever starting, the model (also on 127.0.0.1:9) is never called, and the
 * double starts no browser and dials no proxy. Every host name resolves to 127.0.0.1: no DNS
 * query leaves the machine.
 */
export function createFuzzContext(db: Db, logger: Logger): FuzzContext {
  const clock = new TestClock();
  const sessionHost = new SessionHostDouble(db, clock);
  const localProxy = `http://${LOCAL_ORIGIN.host}:${LOCAL_ORIGIN.port}`;
  const ctx = createTestContext(db, {
    logger,
    clock,
    // The vault API over the built-in vault only (no provider is reachable from a fuzz run).
    vault: () => vaultService({ db, clock, logger, keyring: createKeyring(new VaultKey(randomBytes(32))), providers: {} }),
    profiles: () =>
      profileService({
        db,
        clock,
        store: profileStore({ db, keyring: createKeyring(new VaultKey(randomBytes(32))), logger }),
      }),
    fetch: {
      config: { allowPrivateHosts: [LOCAL_ORIGIN], fetchNeverExpireHosts: [] },
      resolver: async () => [{ address: LOCAL_ORIGIN.host, family: 4 }],
    },
    runs: {
      model: {
        provider: "openai",
        baseUrl: `http://${LOCAL_ORIGIN.host}:${LOCAL_ORIGIN.port}/v1`,
        model: "fuzz",
        apiKey: "fuzz",
      },
      allowPrivateHosts: [LOCAL_ORIGIN],
    },
    sessions: sessionsOver(sessionHost, {
      countryProxies: Object.fromEntries(PROXY_COUNTRIES.map((c) => [c, localProxy])),
      allowPrivateHosts: [LOCAL_ORIGIN],
    }),
  });
  return { ...ctx, db, sessionHost };
}

/**
 * The caller the fuzzer sends as: every optional capability it can ask for, credits to start runs,
 * and two open browser sessions (FUZZ_SESSION_ID, and LIVE_SESSION_ID behind LIVE_TOKEN) that the
 * plausible requests of GET and DELETE /browser/{sessionId} and of the live view find.
 */
export async function fuzzKey(ctx: FuzzContext): Promise<string> {
  const { key, accountId, keyId } = await ctx.newKey({ entitlements: [...ENTITLEMENTS] });
  await ctx.services.accounts.addCredits(accountId, 1_000_000);
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + SESSION_LIMITS.timeoutSeconds.max * 1000);
  const viewport = { ...SESSION_LIMITS.viewport.default };
  for (const [id, token] of [
    [FUZZ_SESSION_ID, "f".repeat(32)],
    [LIVE_SESSION_ID, LIVE_TOKEN],
  ] as const) {
    const inserted = await sessionRepo(ctx.db).insertWithinCap(
      {
        id,
        accountId,
        keyId,
        keyScope: "api",
        subUserId: null,
        mode: "light",
        options: {
          timeout_seconds: SESSION_LIMITS.timeoutSeconds.max,
          inactivity_timeout_seconds: SESSION_LIMITS.inactivitySeconds.max,
          viewport,
          fingerprint_seed: "fuzz",
          proxy: null,
          profile_id: null,
        },
        connectToken: token,
        hostId: ctx.sessionHost.hostId,
        hostUrl: ctx.sessionHost.hostUrl,
        startTime: now,
        expiresAt,
        createdAt: now,
        updatedAt: now,
      },
      2,
    );
    if (!inserted.ok) throw new Error(`fuzzKey: could not open ${id}`);
    await ctx.sessionHost.start({
      id,
      accountId,
      token,
      mode: "light",
      viewport,
      fingerprintSeed: "fuzz",
      countryCode: null,
      upstream: null,
      startedAt: now,
      expiresAt,
      inactivityMs: SESSION_LIMITS.inactivitySeconds.max * 1000,
      profile: null,
    });
  }
  return key;
}

/**
 * What runs between two requests. A minute passes every 20 requests, so that the per-minute limits
 * rarely hide what lies behind them. And every browser session a POST /browser opened is closed, as
 * its client closing the browser would close it: the open-session cap (10 on the fuzz key's plan)
 * would otherwise answer every later creation 429. The two sessions fuzzKey opened stay open.
 */
export function betweenRequests(ctx: FuzzContext): (i: number) => Promise<void> {
  const keep = new Set([FUZZ_SESSION_ID, LIVE_SESSION_ID]);
  return async (i) => {
    if (i % 20 === 19) ctx.clock.advance(61_000);
    for (const id of ctx.sessionHost.holding()) if (!keep.has(id)) await ctx.sessionHost.end(id, "browser_close");
  };
}

// --- running -----------------------------------------------------------------------------------

export interface FuzzFailure {
  request: FuzzRequest;
  status: number | "timeout" | "threw";
  detail: string;
}

export interface FuzzReport {
  sent: number;
  /** Status code → count ("timeout" and "threw" when the app did not answer). */
  histogram: Record<string, number>;
  /** The same, per operation (`METHOD /path/{template}`). */
  byOperation: Record<string, Record<string, number>>;
  /** 5xx answers, timeouts and exceptions out of app.request. */
  failures: FuzzFailure[];
  /** 4xx answers whose body or X-Request-ID do not follow spec 7.1. */
  malformed: FuzzFailure[];
}

interface RequestTarget {
  request(url: string, init: RequestInit): Response | Promise<Response>;
}

/** Why a 4xx/5xx body breaks spec 7.1 (`{error:{code,message,details?},request_id}`), or null. */
export function errorShapeProblem(status: number, text: string, headers: Headers): string | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return "body is not JSON";
  }
  const b = body as { error?: { code?: unknown; message?: unknown; details?: unknown }; request_id?: unknown };
  if (!b || typeof b !== "object" || !b.error || typeof b.error !== "object") return "no error object";
  const keys = Object.keys(b).sort().join(",");
  if (keys !== "error,request_id") return `top-level keys ${keys}`;
  if (typeof b.error.code !== "string" || typeof b.error.message !== "string") return "error.code or error.message missing";
  const extra = Object.keys(b.error).filter((k) => !["code", "message", "details"].includes(k));
  if (extra.length) return `unexpected error keys ${extra.join(",")}`;
  if (b.error.details !== undefined) {
    if (status !== 400 && status !== 413) return `details on a ${status}`;
    if (!Array.isArray(b.error.details)) return "details is not an array";
    for (const d of b.error.details as Record<string, unknown>[]) {
      if (typeof d.code !== "string" || typeof d.message !== "string" || !Array.isArray(d.path))
        return "a detail lacks code/path/message";
    }
  }
  if (typeof b.request_id !== "string" || !b.request_id.startsWith("req_")) return "request_id missing";
  if (headers.get("x-request-id") !== b.request_id) return "X-Request-ID differs from request_id";
  return null;
}

/**
 * Sends every request, one at a time, and sorts the answers. `between` runs after each request
 * (betweenRequests: the test clock moves so that rate limits do not hide what lies behind them).
 */
export async function runFuzz(
  target: RequestTarget,
  requests: FuzzRequest[],
  opts: { timeoutMs?: number; between?: (i: number) => void | Promise<void>; onFailure?: (f: FuzzFailure) => void } = {},
): Promise<FuzzReport> {
  const report: FuzzReport = { sent: 0, histogram: {}, byOperation: {}, failures: [], malformed: [] };
  for (const [i, req] of requests.entries()) {
    const perOperation = report.byOperation[req.operation] ?? {};
    report.byOperation[req.operation] = perOperation;
    const count = (k: string) => {
      report.histogram[k] = (report.histogram[k] ?? 0) + 1;
      perOperation[k] = (perOperation[k] ?? 0) + 1;
    };
    report.sent++;
    const init: RequestInit = { method: req.method, headers: req.headers };
    if (req.body !== undefined && req.method !== "GET" && req.method !== "HEAD") init.body = req.body as BodyInit;
    let timer: NodeJS.Timeout | undefined;
    try {
      const answered = (async () => {
        const res = await target.request(req.url, init);
        return { res, text: await res.text() };
      })();
      const timeout = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), opts.timeoutMs ?? 30_000);
      });
      const got = await Promise.race([answered, timeout]);
      if (got === "timeout") {
        count("timeout");
        const f: FuzzFailure = { request: req, status: "timeout", detail: "no answer in time" };
        report.failures.push(f);
        opts.onFailure?.(f);
        continue;
      }
      const { res, text } = got;
      count(String(res.status));
      if (res.status >= 500) {
        const f: FuzzFailure = { request: req, status: res.status, detail: text.slice(0, 300) };
        report.failures.push(f);
        opts.onFailure?.(f);
      } else if (res.status >= 400 && req.method !== "HEAD") {
        const problem = errorShapeProblem(res.status, text, res.headers);
        if (problem) report.malformed.push({ request: req, status: res.status, detail: `${problem}: ${text.slice(0, 200)}` });
      }
    } catch (err) {
      count("threw");
      const f: FuzzFailure = { request: req, status: "threw", detail: err instanceof Error ? err.message : String(err) };
      report.failures.push(f);
      opts.onFailure?.(f);
    } finally {
      clearTimeout(timer);
      await opts.between?.(i);
    }
  }
  return report;
}

/** One line describing a request, for reports (bodies cut short, control characters escaped). */
export function describeRequest(req: FuzzRequest): string {
  const body =
    req.body === undefined
      ? ""
      : typeof req.body === "string"
        ? ` body=${JSON.stringify(req.body.slice(0, 160))}${req.body.length > 160 ? `…(${req.body.length} chars)` : ""}`
        : ` body=bytes[${req.body.length}]`;
  const url = req.url.length > 200 ? `${req.url.slice(0, 200)}…(${req.url.length} chars)` : req.url;
  const headers = JSON.stringify(
    Object.fromEntries(
      Object.entries(req.headers).map(([k, v]) => [
        k,
        k === "x-api-key" && v.startsWith("osk_") && v.length > 40 ? "<valid key>" : v.slice(0, 60),
      ]),
    ),
  );
  return `${req.method} ${url} headers=${headers}${body} [${req.label}]`;
}

// --- network guard -----------------------------------------------------------------------------

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost", "::ffff:127.0.0.1"]);

/**
 * Refuses, for as long as it is installed, every TCP connection to anything but loopback: the
 * fuzzer's bodies hold URLs and a mistake in them must not become a request to the internet. A
 * refused connection fails the way a network error does, and is counted.
 */
export function guardNetwork(): { blocked: string[]; restore(): void } {
  const proto = net.Socket.prototype as unknown as { connect: (...args: unknown[]) => net.Socket };
  const original = proto.connect;
  const blocked: string[] = [];
  proto.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
    // Node calls connect either with (options | port, host) or with one already normalised array.
    const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
    const host =
      first && typeof first === "object"
        ? (first as { path?: string; host?: string }).path
          ? undefined
          : ((first as { host?: string }).host ?? "localhost")
        : typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))
          ? typeof args[1] === "string"
            ? args[1]
            : "localhost"
          : undefined;
    if (host !== undefined && !LOOPBACK.has(host.replace(/^\[|\]$/g, ""))) {
      blocked.push(host);
      process.nextTick(() => this.destroy(new Error(`fuzz network guard: connection to ${host} refused`)));
      return this;
    }
    return original.apply(this, args);
  };
  return {
    blocked,
    restore() {
      proto.connect = original;
    },
  };
}
