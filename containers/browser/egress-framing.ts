import http from "node:http";
import type { Duplex } from "node:stream";

/**
 * HTTP/1.1 forward-proxy framing for the egress proxy (egress-proxy.ts): which headers a proxy
 * passes on (RFC 9110 7.6.1), how a CONNECT authority is read, and how a refused tunnel or upgrade
 * is answered. No policy here: what may be reached is decided in egress-proxy.ts.
 */

/** Hop-by-hop headers (RFC 9110 7.6.1) and the proxy's own: never forwarded. */
const HOP_BY_HOP = new Set([
  "connection",
  "proxy-connection",
  "keep-alive",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

export type Refusal = { status: 403 | 502 | 504; reason: string };

/**
 * Parses a CONNECT authority (`host:port`, `[v6]:port`) into a URL the policy can judge: as
 * `http://host:port/`, so the port is judged as given (an https:// URL would hide :443 and show :80).
 */
export function authorityUrl(authority: string): URL | null {
  if (!/^(\[[0-9a-fA-F:.]+\]|[^\s/?#@[\]:]+):\d{1,5}$/.test(authority)) return null;
  try {
    return new URL(`http://${authority}/`);
  } catch {
    return null;
  }
}

/** Headers to forward: the request's own, minus hop-by-hop ones and those named in Connection. */
export function forwardHeaders(rawHeaders: string[], keepUpgrade: boolean): string[] {
  const named = new Set<string>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if ((rawHeaders[i] as string).toLowerCase() === "connection") {
      for (const token of (rawHeaders[i + 1] as string).split(",")) named.add(token.trim().toLowerCase());
    }
  }
  const out: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as string).toLowerCase();
    const keep = keepUpgrade && (name === "upgrade" || name === "connection");
    if (!keep && (HOP_BY_HOP.has(name) || named.has(name))) continue;
    out.push(rawHeaders[i] as string, rawHeaders[i + 1] as string);
  }
  return out;
}

export function withoutHost(rawHeaders: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if ((rawHeaders[i] as string).toLowerCase() !== "host") out.push(rawHeaders[i] as string, rawHeaders[i + 1] as string);
  }
  return out;
}

const statusLine = (status: number) =>
  `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ""}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n`;

/** Ends a raw client socket (CONNECT or upgrade) with a refusal; the browser shows a network error. */
export function refuseSocket(socket: Duplex, { status, reason }: Refusal): void {
  const body = `Osprey egress proxy: ${reason}\n`;
  if (!socket.writable) return void socket.destroy();
  socket.end(`${statusLine(status)}X-Osprey-Egress: refused\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
}
