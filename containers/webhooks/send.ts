import https from "node:https";
import { isIP } from "node:net";
import type { AllowedHost } from "../../functions/config/config.ts";
import {
  AddressPolicyError,
  bareHost,
  checkUrl,
  effectivePort,
  type Resolver,
  resolvePublic,
} from "../../functions/net/address-policy.ts";
import { pinnedLookup, untilAborted } from "../../functions/net/safe-http.ts";

/**
 * One webhook POST under the address policy. Unlike safeFetch (a GET that follows redirects), it
 * sends a body, never follows a redirect and speaks HTTPS only. The destination is checked before
 * DNS (checkUrl), resolved and checked again (resolvePublic), and the socket connects to that very
 * address (a pinned `lookup`), so a second DNS answer can never be used. Host header and TLS server
 * name stay the URL's host name, so certificates are verified against it.
 */

/** At most this much of a response body is read; the rest is dropped with the connection. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

export interface SendOptions {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  allow: AllowedHost[];
  resolver?: Resolver;
  /** Trusted CA certificates instead of Node's default roots (tests use their own CA). */
  ca?: string | Buffer;
}

export type SendResult =
  /** The receiver answered; `body` holds at most MAX_RESPONSE_BYTES of it. */
  | { kind: "response"; status: number; headers: Record<string, string>; body: Buffer }
  /** Never sent: the URL or its address is refused. Retrying cannot help. */
  | { kind: "refused"; error: string }
  /** Network, DNS or TLS failure, or the deadline passed: worth retrying. */
  | { kind: "network"; error: string; timedOut: boolean };

function describe(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  return typeof code === "string" && !message.includes(code) ? `${code}: ${message}` : message;
}

function flatten(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

function post(
  url: URL,
  target: { address: string; family: 4 | 6 },
  opts: SendOptions,
  signal: AbortSignal,
): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  const host = bareHost(url.hostname);
  const body = Buffer.from(opts.body, "utf8");
  const request: https.RequestOptions = {
    host,
    port: effectivePort(url),
    path: `${url.pathname}${url.search}`,
    method: "POST",
    headers: { ...opts.headers, "content-length": String(body.length) },
    lookup: pinnedLookup(target),
    agent: false,
    signal,
  };
  if (isIP(host) === 0) request.servername = host;
  if (opts.ca !== undefined) request.ca = opts.ca;
  return new Promise((resolve, reject) => {
    const req = https.request(request, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = () => {
        res.removeAllListeners("data");
        resolve({ status: res.statusCode ?? 0, headers: flatten(res.headers), body: Buffer.concat(chunks) });
      };
      res.on("data", (chunk: Buffer) => {
        const room = MAX_RESPONSE_BYTES - size;
        if (chunk.length >= room) {
          chunks.push(chunk.subarray(0, room));
          size = MAX_RESPONSE_BYTES;
          finish();
          res.destroy();
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      res.on("end", finish);
      // The status is known: a body cut short still counts as the receiver's answer.
      res.on("error", finish);
      res.on("aborted", finish);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** Sends one webhook POST. Never throws: every outcome is a SendResult. */
export async function sendWebhook(opts: SendOptions): Promise<SendResult> {
  const checked = checkUrl(opts.url, opts.allow);
  if (!checked.ok) return { kind: "refused", error: `webhook URL refused: ${checked.reason}` };
  const url = checked.url;
  if (url.protocol !== "https:") return { kind: "refused", error: "webhook URL refused: only https URLs are delivered" };
  const signal = AbortSignal.timeout(opts.timeoutMs);
  try {
    const target = await untilAborted(resolvePublic(url.hostname, effectivePort(url), opts.allow, opts.resolver), signal);
    const res = await post(url, target, opts, signal);
    return { kind: "response", ...res };
  } catch (err) {
    if (signal.aborted) return { kind: "network", error: `no response within ${opts.timeoutMs} ms`, timedOut: true };
    if (err instanceof AddressPolicyError && err.kind === "blocked") {
      return { kind: "refused", error: `webhook URL refused: ${err.message}` };
    }
    return { kind: "network", error: describe(err), timedOut: false };
  }
}
