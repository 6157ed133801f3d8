import { BodyTooLarge, readCapped } from "../../net/read-capped.ts";
import { ProviderAuthError, type ProviderConnection, ProviderUnavailableError } from "./types.ts";

/**
 * The HTTP client the external vault providers (1Password Connect, Bitwarden `bw serve`) share: one
 * GET of JSON, bounded in time and size, whose every failure is one of the port's errors. A message
 * names the connection (its id) and never the token, the URL's path or any value the provider sent
 * back but a short, redacted error text.
 */

/** Per-request budget (connect, headers and body together). */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** A body larger than this is refused rather than buffered: a `bw serve` list of 5,000 items is a few MiB. */
export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;
/** The most items one connection may list (more answers ProviderUnavailableError, never a silent cut). */
export const DEFAULT_MAX_ITEMS = 5_000;

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** Options every external provider takes (tests shorten the timeout). */
export interface ProviderHttpOptions {
  timeoutMs?: number;
  maxBodyBytes?: number;
  maxItems?: number;
  fetch?: FetchLike;
}

export type ProviderUrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/**
 * A provider's base URL as an operator configures it: http or https, a host, no credentials (the
 * token goes in its own option), no query or fragment; a path is kept as a prefix (a Connect server
 * behind a reverse proxy at /1password/).
 */
export function checkProviderUrl(raw: string): ProviderUrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "not a valid URL (expected http(s)://host[:port][/path])" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, reason: `scheme "${url.protocol.slice(0, -1)}" is not supported (http or https only)` };
  }
  if (url.hostname === "") return { ok: false, reason: "the URL has no host" };
  if (url.username !== "" || url.password !== "") return { ok: false, reason: "the URL may not carry credentials" };
  if (url.search !== "" || url.hash !== "") return { ok: false, reason: "the URL may not have a query or fragment" };
  if (!url.pathname.endsWith("/")) url.pathname = `${url.pathname}/`;
  return { ok: true, url };
}

/** One provider call's settings, resolved from the connection and the provider's options. */
export interface ProviderCall {
  /** "1Password", "Bitwarden": the first words of every message. */
  label: string;
  connection: ProviderConnection;
  base: URL;
  headers: Record<string, string>;
  timeoutMs: number;
  maxBodyBytes: number;
  fetch: FetchLike;
}

/** "1Password connection vc_…": how every message names the connection. */
export const who = (call: Pick<ProviderCall, "label" | "connection">): string => `${call.label} connection ${call.connection.id}`;

/** Settings of one call; a connection without a usable URL is ProviderUnavailableError. */
export function providerCall(
  label: string,
  connection: ProviderConnection,
  opts: ProviderHttpOptions,
  headers: Record<string, string>,
): ProviderCall {
  const checked = connection.url === null ? null : checkProviderUrl(connection.url);
  if (!checked?.ok) {
    const why = checked ? checked.reason : "no URL is configured";
    throw new ProviderUnavailableError(`${label} connection ${connection.id}: ${why}`);
  }
  return {
    label,
    connection,
    base: checked.url,
    headers,
    timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxBodyBytes: opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    fetch: opts.fetch ?? ((input, init) => fetch(input, init)),
  };
}

/** `base` + path segments, each percent-encoded (an id from the provider never changes the path's shape). */
export function endpoint(base: URL, segments: string[]): URL {
  return new URL(segments.map(encodeURIComponent).join("/"), base);
}

/** Replaces the token (and its URL-encoded form) in `text`. */
export function redact(text: string, secret: string | null): string {
  if (!secret) return text;
  let out = text;
  for (const form of new Set([secret, encodeURIComponent(secret)])) out = out.split(form).join("[redacted]");
  return out;
}

/** A short excerpt of an error body: its `message` (or `error`) when JSON, else nothing (an HTML page says little). */
function errorDetail(body: unknown, token: string | null): string {
  if (!body || typeof body !== "object") return "";
  const o = body as Record<string, unknown>;
  const candidate = typeof o.message === "string" ? o.message : typeof o.error === "string" ? o.error : "";
  const flat = redact(candidate.replace(/\s+/g, " ").trim(), token);
  return flat.length > 160 ? `${flat.slice(0, 160)}…` : flat;
}

const withDetail = (message: string, detail: string) => (detail ? `${message}: ${detail}` : message);

function networkCause(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}

export interface JsonAnswer {
  status: number;
  /** The parsed body; undefined when a non-2xx answer's body was not JSON. */
  body: unknown;
}

/**
 * GETs `segments` under the connection's URL. Throws ProviderAuthError on 401/403 and
 * ProviderUnavailableError on a timeout, a network error, a redirect (the token must not follow
 * one), a 5xx, a body over the cap or a 2xx that is not JSON; any other status (404, `bw serve`'s
 * 400) is returned for the provider to read.
 */
export async function getJson(call: ProviderCall, segments: string[]): Promise<JsonAnswer> {
  const name = who(call);
  const token = call.connection.token;
  const signal = AbortSignal.timeout(call.timeoutMs);
  let status = 0;
  let text: string;
  try {
    const res = await call.fetch(endpoint(call.base, segments).toString(), {
      method: "GET",
      headers: { accept: "application/json", ...call.headers },
      signal,
      redirect: "error",
    });
    status = res.status;
    text = await readCapped(res, call.maxBodyBytes);
  } catch (err) {
    if (err instanceof BodyTooLarge) {
      throw new ProviderUnavailableError(`${name}: the answer is larger than ${call.maxBodyBytes} bytes`);
    }
    if (signal.aborted) throw new ProviderUnavailableError(`${name}: no answer within ${call.timeoutMs} ms`);
    throw new ProviderUnavailableError(redact(`${name}: unreachable (${networkCause(err)})`, token));
  }
  let body: unknown;
  let parsed = true;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    parsed = false;
  }
  if (status === 401 || status === 403) {
    throw new ProviderAuthError(withDetail(`${name}: the provider refused the token (${status})`, errorDetail(body, token)));
  }
  if (status >= 500) {
    throw new ProviderUnavailableError(withDetail(`${name}: the provider answered ${status}`, errorDetail(body, token)));
  }
  if (status >= 200 && status < 300 && !parsed) {
    throw new ProviderUnavailableError(`${name}: the provider answered invalid JSON (${text.length} bytes)`);
  }
  return { status, body };
}

/** A 2xx or 4xx the provider was not expected to give. */
export function unexpected(call: ProviderCall, what: string): ProviderUnavailableError {
  return new ProviderUnavailableError(`${who(call)}: ${what}`);
}
