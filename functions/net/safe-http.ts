import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import type { AllowedHost } from "../config/config.ts";
import { AddressPolicyError, bareHost, checkUrl, effectivePort, type Resolver, resolvePublic } from "./address-policy.ts";
import { ACCEPT_ENCODING, BodyDecodeError, readBody } from "./body.ts";

/**
 * HTTP(S) GET that can reach only what the address policy allows. Every hop is checked before DNS
 * (checkUrl), resolved and checked again (resolvePublic), and connected to the checked address
 * itself: the socket's `lookup` answers with that address, so a second DNS answer can never be
 * used (no rebinding window). Redirects are followed here, one checked hop at a time. The Host
 * header and TLS server name stay the URL's host name, so virtual hosting and certificates work.
 */

/** Default cap on a body, on the wire and decoded (issue 3, "documented maximum body size"). */
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
/** Redirect hops followed before giving up (browsers allow 20, curl 50; ten is plenty for real sites). */
export const MAX_REDIRECTS = 10;
/** Deadline when the caller passes no signal: the spec's backend timeout per URL (section 8). */
export const DEFAULT_TIMEOUT_MS = 110_000;

export const DEFAULT_HEADERS: Readonly<Record<string, string>> = {
  "user-agent":
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Osprey/0.1 (+fetch)",
  accept: "text/html,application/xhtml+xml,application/xml;q=0.9,application/pdf,application/json;q=0.9,*/*;q=0.8",
  "accept-language": "en-US,en;q=0.9",
  "accept-encoding": ACCEPT_ENCODING,
};

/** Headers the caller may not set: the connection's framing and target are ours to decide. */
const RESERVED_HEADERS = new Set(["host", "connection", "content-length", "transfer-encoding", "keep-alive", "upgrade", "te"]);
/** Credentials that must not follow a redirect to another origin (as WHATWG Fetch does). */
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export interface SafeFetchOptions {
  /** Extra request headers (names case-insensitive); they override DEFAULT_HEADERS. */
  headers?: Record<string, string>;
  /** Aborting it ends the fetch with `timeout`. */
  signal?: AbortSignal;
  /** Cap on the body, both on the wire and after decoding; default DEFAULT_MAX_BODY_BYTES. */
  maxBodyBytes?: number;
  /** OSPREY_ALLOW_PRIVATE_HOSTS: host[:port] entries exempt from the address policy. */
  allow?: AllowedHost[];
  /** DNS resolution (tests inject a stub); default: the system resolver, every address. */
  resolver?: Resolver;
}

export interface SafeResponse {
  ok: true;
  /** Any HTTP status: mapping statuses to per-URL error codes is the caller's job. */
  status: number;
  /** Lower-case names; repeated headers joined with ", ". Content-Encoding/Length removed once decoded. */
  headers: Record<string, string>;
  body: Buffer;
  finalUrl: string;
  /** The body reached maxBodyBytes and holds only the first maxBodyBytes bytes. */
  truncated: boolean;
}

export type SafeFetchError = "invalid_url" | "invalid_redirect_url" | "target_unreachable" | "timeout";

export interface SafeFailure {
  ok: false;
  error: SafeFetchError;
  /** For logs, not for callers of the API: it may name internal addresses. */
  detail: string;
}

const failure = (error: SafeFetchError, detail: string): SafeFailure => ({ ok: false, error, detail });

function mergeHeaders(extra: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = { ...DEFAULT_HEADERS };
  for (const [name, value] of Object.entries(extra ?? {})) {
    const key = name.toLowerCase();
    if (!RESERVED_HEADERS.has(key)) out[key] = value;
  }
  return out;
}

function flattenHeaders(raw: http.IncomingHttpHeaders, decoded: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    if (decoded && (name === "content-encoding" || name === "content-length")) continue;
    out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

/** Rejects when the signal aborts, so a hanging resolver cannot outlive the deadline. */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * A socket `lookup` that answers with the address the policy already checked, so the connection
 * can only go there. It answers on a later turn of the event loop, as a real resolver does: called
 * back synchronously, a connect() that fails at once (ENETUNREACH, EHOSTUNREACH: an address with
 * no route) emits the socket's 'error' before http/tls has attached its listener, and an
 * unhandled 'error' ends the process (the audit's one-request crash, issue 15).
 */
export function pinnedLookup(target: { address: string; family: 4 | 6 }): LookupFunction {
  return (_name, options, callback) => {
    setImmediate(() => {
      if (options.all) callback(null, [target]);
      else callback(null, target.address, target.family);
    });
  };
}

/** One GET to `url`, on a fresh connection to `target` (never a pooled or re-resolved one). */
function request(
  url: URL,
  target: { address: string; family: 4 | 6 },
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<http.IncomingMessage> {
  const host = bareHost(url.hostname);
  const options: https.RequestOptions = {
    host,
    port: effectivePort(url),
    path: `${url.pathname}${url.search}`,
    method: "GET",
    headers,
    lookup: pinnedLookup(target),
    agent: false,
    signal,
  };
  if (url.protocol === "https:" && isIP(host) === 0) options.servername = host;
  return new Promise((resolve, reject) => {
    const req = (url.protocol === "https:" ? https : http).request(options, resolve);
    req.on("error", reject);
    req.end();
  });
}

function describe(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  return typeof code === "string" && !message.includes(code) ? `${code}: ${message}` : message;
}

/**
 * Fetches `rawUrl` under the address policy. Never throws for a per-URL failure: every outcome is
 * a SafeResponse (any HTTP status) or a SafeFailure (STYLE habit 6).
 */
export async function safeFetch(rawUrl: string, opts: SafeFetchOptions = {}): Promise<SafeResponse | SafeFailure> {
  // A backstop deadline of our own, cleared on return so a finished fetch leaves no timer behind.
  const backstop = new AbortController();
  const timer = setTimeout(() => backstop.abort(new DOMException("deadline", "TimeoutError")), DEFAULT_TIMEOUT_MS);
  timer.unref();
  try {
    return await followHops(rawUrl, opts, opts.signal ? AbortSignal.any([opts.signal, backstop.signal]) : backstop.signal);
  } finally {
    clearTimeout(timer);
  }
}

async function followHops(rawUrl: string, opts: SafeFetchOptions, signal: AbortSignal): Promise<SafeResponse | SafeFailure> {
  const allow = opts.allow ?? [];
  const maxBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const headers = mergeHeaders(opts.headers);
  let current = rawUrl;
  let previous: URL | null = null;
  for (let hop = 0; ; hop++) {
    const refused: SafeFetchError = hop === 0 ? "invalid_url" : "invalid_redirect_url";
    const checked = checkUrl(current, allow);
    if (!checked.ok) return failure(refused, checked.reason);
    const url = checked.url;
    if (previous && previous.origin !== url.origin) for (const h of CREDENTIAL_HEADERS) delete headers[h];
    if (signal.aborted) return failure("timeout", "deadline passed before connecting");
    let response: http.IncomingMessage;
    try {
      const target = await untilAborted(resolvePublic(url.hostname, effectivePort(url), allow, opts.resolver), signal);
      response = await request(url, target, headers, signal);
    } catch (err) {
      if (signal.aborted) return failure("timeout", `deadline passed while connecting to ${url.host}`);
      if (err instanceof AddressPolicyError && err.kind === "blocked") return failure(refused, err.message);
      return failure("target_unreachable", describe(err));
    }
    const location = response.headers.location;
    if (REDIRECT_STATUSES.has(response.statusCode ?? 0) && location !== undefined) {
      response.destroy();
      if (hop >= MAX_REDIRECTS) return failure("target_unreachable", `more than ${MAX_REDIRECTS} redirects`);
      if (!URL.canParse(location, url)) return failure("invalid_redirect_url", "redirect Location is not a valid URL");
      const next = new URL(location, url);
      // WHATWG Fetch: a Location without a fragment keeps the one the request had.
      if (next.hash === "" && url.hash !== "") next.hash = url.hash;
      current = next.href;
      previous = url;
      continue;
    }
    try {
      const read = await readBody(response, maxBytes, signal);
      return {
        ok: true,
        status: response.statusCode ?? 0,
        headers: flattenHeaders(response.headers, read.decoded),
        body: read.body,
        finalUrl: url.href,
        truncated: read.truncated,
      };
    } catch (err) {
      response.destroy();
      if (signal.aborted) return failure("timeout", `deadline passed while reading ${url.href}`);
      if (err instanceof BodyDecodeError) return failure("target_unreachable", err.message);
      return failure("target_unreachable", describe(err));
    }
  }
}
