import { isIP } from "node:net";
import type { Duplex } from "node:stream";
import type { ConnectionOptions } from "node:tls";
import { parseUpstreamUrl, type UpstreamProxy } from "../../functions/net/upstream-url.ts";

/**
 * The egress proxy's side of chaining to an upstream proxy (issue "[2 of 6]"): an operator's proxy
 * for a `managed` country, or a caller's `custom` one. The egress proxy (egress-proxy.ts) still
 * judges every destination and every untrusted upstream, connects and counts; this module speaks
 * HTTP-proxy to the upstream once a connection to it is open: CONNECT for tunnels, absolute-form
 * for plain requests and upgrades, Basic Proxy-Authorization from the URL's userinfo.
 *
 * The upstream's URL can hold a password: every message here names the proxy by `display`
 * (`scheme://host:port`) only, never by its URL.
 */

export interface EgressUpstream {
  /** `http(s)://[user:password@]host[:port]` (functions/net/upstream-url.ts says what is accepted). */
  url: string;
  /**
   * True for a proxy the operator configured (a `managed` country): it is connected to wherever it
   * is, private addresses included. False for a caller's `custom` proxy: its host is judged by the
   * address policy and pinned like any destination, or a caller could reach internal addresses by
   * naming them as their "proxy".
   */
  trusted: boolean;
}

export interface UpstreamRoute extends UpstreamProxy {
  trusted: boolean;
}

/** Parses an upstream once, when it is set; a bad URL throws (its reason never quotes the URL). */
export function upstreamRoute(upstream: EgressUpstream | null): UpstreamRoute | null {
  if (!upstream) return null;
  const parsed = parseUpstreamUrl(upstream.url);
  if (!parsed.ok) throw new Error(`egress proxy: invalid upstream proxy URL: ${parsed.reason}`);
  return { ...parsed.proxy, trusted: upstream.trusted };
}

/** The upstream failed (or refused): the browser gets a network error, the reason goes to the logs. */
export class UpstreamFailure extends Error {
  override name = "UpstreamFailure";
  readonly status: 502 | 504;
  constructor(status: 502 | 504, reason: string) {
    super(reason);
    this.status = status;
  }
}

/** `Proxy-Authorization` as a raw header pair, or nothing for a proxy without credentials. */
export const proxyAuthorization = (route: UpstreamRoute): string[] =>
  route.authorization ? ["Proxy-Authorization", route.authorization] : [];

/** Options for TLS to an https:// upstream: the certificate must name the proxy's host. */
export const proxyTlsOptions = (route: UpstreamRoute): ConnectionOptions => ({
  host: route.host,
  // SNI carries names only (RFC 6066 3); an IP literal is checked against the certificate's IP SANs.
  ...(isIP(route.host) === 0 ? { servername: route.host } : {}),
  ALPNProtocols: ["http/1.1"],
});

/** Why the upstream did not do what was asked, by its status. */
export function answeredWith(route: UpstreamRoute, status: number, asked: string): UpstreamFailure {
  if (status === 407) {
    return new UpstreamFailure(502, `upstream proxy ${route.display} refused the proxy credentials (407) for ${asked}`);
  }
  return new UpstreamFailure(502, `upstream proxy ${route.display} answered ${status} to ${asked}`);
}

const MAX_HEAD_BYTES = 16 * 1024;

export interface ResponseHead {
  status: number;
  /** The head as received, final blank line included. */
  head: Buffer;
  /** Bytes that arrived after the head (the tunnel's or the upgraded protocol's first bytes). */
  rest: Buffer;
}

/**
 * Reads one HTTP response head from the upstream, bounded by `timeoutMs`. The socket is left
 * paused with nothing lost, ready to be piped. On failure the socket is destroyed.
 */
export function readResponseHead(socket: Duplex, route: UpstreamRoute, timeoutMs: number): Promise<ResponseHead> {
  return new Promise((resolve, reject) => {
    let buffered: Buffer = Buffer.alloc(0);
    const finish = (failure: UpstreamFailure | null, answer?: ResponseHead) => {
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("end", onEnd);
      socket.off("close", onEnd);
      socket.off("error", onError);
      if (failure || !answer) {
        socket.destroy();
        reject(failure);
      } else resolve(answer);
    };
    const timer = setTimeout(
      () => finish(new UpstreamFailure(504, `upstream proxy ${route.display} did not answer within ${timeoutMs} ms`)),
      Math.max(1, timeoutMs),
    );
    const onData = (chunk: Buffer) => {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf("\r\n\r\n");
      if (end === -1) {
        if (buffered.length > MAX_HEAD_BYTES)
          finish(new UpstreamFailure(502, `upstream proxy ${route.display} sent an oversized head`));
        return;
      }
      // Paused before the listener goes: a flowing stream with no `data` listener drops what arrives.
      socket.pause();
      const head = buffered.subarray(0, end + 4);
      const status = /^HTTP\/1\.[01] (\d{3})[ \r]/.exec(head.toString("latin1"))?.[1];
      if (!status) return finish(new UpstreamFailure(502, `upstream proxy ${route.display} did not answer in HTTP/1.1`));
      finish(null, { status: Number(status), head, rest: buffered.subarray(end + 4) });
    };
    const onEnd = () =>
      finish(new UpstreamFailure(502, `upstream proxy ${route.display} closed the connection without answering`));
    const onError = (err: Error) =>
      finish(
        new UpstreamFailure(502, `upstream proxy ${route.display} failed: ${(err as { code?: string }).code ?? err.message}`),
      );
    socket.on("data", onData);
    socket.once("end", onEnd);
    socket.once("close", onEnd);
    socket.once("error", onError);
  });
}

/**
 * Asks the upstream for a tunnel to `authority` (the destination's name and port: the upstream
 * resolves it in its own country). Resolves with any bytes that followed the upstream's 2xx.
 */
export async function openTunnel(socket: Duplex, route: UpstreamRoute, authority: string, timeoutMs: number): Promise<Buffer> {
  const auth = route.authorization ? `Proxy-Authorization: ${route.authorization}\r\n` : "";
  socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${auth}\r\n`);
  const answer = await readResponseHead(socket, route, timeoutMs);
  // RFC 9110 9.3.6: any 2xx answer to CONNECT means the tunnel is open.
  if (answer.status >= 200 && answer.status < 300) return answer.rest;
  socket.destroy();
  throw answeredWith(route, answer.status, `CONNECT ${authority}`);
}

/**
 * Sends an upgrade request (plain `ws:`) to the upstream in absolute form and reads its answer
 * head. A 407 is the upstream's own refusal; any other answer is the destination's, passed on.
 * Resolves with the bytes to give the browser (head and what followed).
 */
export async function upgradeThrough(
  socket: Duplex,
  route: UpstreamRoute,
  request: { method: string; target: string; headers: string[]; body: Buffer },
  timeoutMs: number,
): Promise<Buffer> {
  const headers = [...request.headers, ...proxyAuthorization(route)];
  let head = `${request.method} ${request.target} HTTP/1.1\r\n`;
  for (let i = 0; i < headers.length; i += 2) head += `${headers[i]}: ${headers[i + 1]}\r\n`;
  socket.write(`${head}\r\n`);
  if (request.body.length > 0) socket.write(request.body);
  const answer = await readResponseHead(socket, route, timeoutMs);
  if (answer.status === 407) {
    socket.destroy();
    throw answeredWith(route, 407, `an upgrade to ${new URL(request.target).host}`);
  }
  return Buffer.concat([answer.head, answer.rest]);
}
