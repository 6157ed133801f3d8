/**
 * The app under test, sending the fuzzer's requests (fuzz.ts builds them) to it and judging the
 * answers: no 5xx, and every error in the spec 7.1 shape; and the guard that keeps a run on loopback.
 */
import net from "node:net";
import type { Db } from "../../functions/db/db.ts";
import type { Logger } from "../../functions/lib/logger.ts";
import { ENTITLEMENTS } from "../../schema/plans.ts";
import { createTestContext, type TestContext } from "./app.ts";
import type { FuzzRequest } from "./fuzz.ts";

// --- the app under test ----------------------------------------------------------------------

/** The only origin bodies may name: loopback, on the discard port, where nothing answers. */
const LOCAL_ORIGIN = { host: "127.0.0.1", port: 9 };

/**
 * The in-process app as the fuzzer drives it. So that hostile bodies reach the code that stores
 * them (run requests in jsonb, fetch usage rows), 127.0.0.1:9 is an allowed host and a model is
 * configured; but there is no queue and no worker, so an admitted run fails at once without ever
 * starting, and the model (also on 127.0.0.1:9) is never called. Every host name resolves to
 * 127.0.0.1: no DNS query leaves the machine.
 */
export function createFuzzContext(db: Db, logger: Logger): TestContext {
  return createTestContext(db, {
    logger,
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
  });
}

/** The caller the fuzzer sends as: every optional capability it can ask for, and credits to start runs. */
export async function fuzzKey(ctx: TestContext): Promise<string> {
  const { key, accountId } = await ctx.newKey({ entitlements: [...ENTITLEMENTS] });
  await ctx.services.accounts.addCredits(accountId, 1_000_000);
  return key;
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
 * (the harness moves the test clock so that rate limits do not hide what lies behind them).
 */
export async function runFuzz(
  target: RequestTarget,
  requests: FuzzRequest[],
  opts: { timeoutMs?: number; between?: (i: number) => void; onFailure?: (f: FuzzFailure) => void } = {},
): Promise<FuzzReport> {
  const report: FuzzReport = { sent: 0, histogram: {}, failures: [], malformed: [] };
  const count = (k: string) => {
    report.histogram[k] = (report.histogram[k] ?? 0) + 1;
  };
  for (const [i, req] of requests.entries()) {
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
      opts.between?.(i);
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
