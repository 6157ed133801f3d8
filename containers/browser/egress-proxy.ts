import http from "node:http";
import net from "node:net";
import type { Duplex } from "node:stream";
import type { AllowedHost } from "../../functions/config/config.ts";
import type { Logger } from "../../functions/lib/logger.ts";
import { AddressPolicyError, checkUrl, effectivePort, type Resolver, resolvePublic } from "../../functions/net/address-policy.ts";

/**
 * Osprey's egress proxy: every request a browser sends (documents, subresources, fetch/XHR,
 * WebSockets, Workers, SharedWorkers, service workers) goes through it, because Chromium is started
 * with `--proxy-server` pointing here and `<-loopback>` in its bypass list (ARCHITECTURE.md, "Remote
 * browser sessions"; issue 15). Chromium never resolves a destination itself; this proxy resolves
 * the name once, judges every answer with the fetch address policy (functions/net/address-policy.ts)
 * and connects to the very address it judged. A name that answers public now and 127.0.0.1 a moment
 * later (DNS rebinding) therefore gets nowhere: each connection is judged on the address it uses.
 *
 * It speaks the two forms a browser uses with an HTTP proxy: absolute-form requests for `http:`
 * (and plain `ws:` upgrades), and CONNECT tunnels for `https:`/`wss:` (and `ws:` in Chromium). A
 * refused destination is answered at once, as a network error the page sees (a closed connection
 * for a request, a 403/502 to a CONNECT: ERR_EMPTY_RESPONSE / ERR_TUNNEL_CONNECTION_FAILED), never
 * left hanging; the reason goes to the logs and `onRefused`. Bytes are counted per proxy, so a
 * proxy per browser context gives per-run and per-session figures.
 */

export interface EgressProxyOptions {
  /** OSPREY_ALLOW_PRIVATE_HOSTS: host[:port] entries exempt from the address policy. */
  allowPrivateHosts: AllowedHost[];
  /** DNS resolution (tests inject a stub); default: the system resolver. */
  resolver?: Resolver;
  logger?: Logger;
  /** How long a connection to a destination may take. Default 15 s. */
  connectTimeoutMs?: number;
  /** A tunnel or request with no traffic either way for this long is closed. Default 5 min. */
  idleTimeoutMs?: number;
  /** Connections from the browser at once; more are closed as they arrive. Default 1024. */
  maxConnections?: number;
  /** Hears each refused destination (the run's `blocked` list, logs). */
  onRefused?: (destination: string, reason: string) => void;
}

export interface EgressCounters {
  /** Bytes received from destinations (what the proxy passed on to the browser, before framing). */
  rxBytes: number;
  /** Bytes sent to destinations. */
  txBytes: number;
  /** Destinations connected to. */
  connections: number;
  /** Destinations refused by the address policy or unreachable. */
  refused: number;
}

export interface EgressProxy {
  /** `http://127.0.0.1:<port>`: the value for `--proxy-server` or a context's `proxyServer`. */
  url: string;
  port: number;
  counters(): EgressCounters;
  /** Stops accepting, cuts every open tunnel and request. Idempotent. */
  close(): Promise<void>;
}

/** What Chromium's bypass list needs so that loopback destinations come here too (it bypasses them by default). */
export const PROXY_BYPASS_LIST = "<-loopback>";

const DEFAULT_CONNECT_TIMEOUT_MS = 15_000;
const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

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

type Refusal = { status: 403 | 502 | 504; reason: string };

class Refused extends Error {
  readonly refusal: Refusal;
  constructor(refusal: Refusal) {
    super(refusal.reason);
    this.refusal = refusal;
  }
}

/**
 * Parses a CONNECT authority (`host:port`, `[v6]:port`) into a URL the policy can judge: as
 * `http://host:port/`, so the port is judged as given (an https:// URL would hide :443 and show :80).
 */
function authorityUrl(authority: string): URL | null {
  if (!/^(\[[0-9a-fA-F:.]+\]|[^\s/?#@[\]:]+):\d{1,5}$/.test(authority)) return null;
  try {
    return new URL(`http://${authority}/`);
  } catch {
    return null;
  }
}

/** Headers to forward: the request's own, minus hop-by-hop ones and those named in Connection. */
function forwardHeaders(rawHeaders: string[], keepUpgrade: boolean): string[] {
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

function withoutHost(rawHeaders: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if ((rawHeaders[i] as string).toLowerCase() !== "host") out.push(rawHeaders[i] as string, rawHeaders[i + 1] as string);
  }
  return out;
}

const statusLine = (status: number) =>
  `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ""}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n`;

/** Ends a raw client socket (CONNECT or upgrade) with a refusal; the browser shows a network error. */
function refuseSocket(socket: Duplex, { status, reason }: Refusal): void {
  const body = `Osprey egress proxy: ${reason}\n`;
  if (!socket.writable) return void socket.destroy();
  socket.end(`${statusLine(status)}X-Osprey-Egress: refused\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
}

export async function startEgressProxy(opts: EgressProxyOptions): Promise<EgressProxy> {
  const connectTimeoutMs = opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const idleTimeoutMs = opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const counters: EgressCounters = { rxBytes: 0, txBytes: 0, connections: 0, refused: 0 };
  const open = new Set<net.Socket | Duplex>();
  /** Connections to destinations still open: their bytes so far count in counters() too. */
  const upstreams = new Set<net.Socket>();
  let closed = false;

  const track = (s: net.Socket | Duplex) => {
    open.add(s);
    s.once("close", () => open.delete(s));
    // Every socket here has an error listener: one failed connection never reaches the process.
    s.on("error", () => s.destroy());
  };

  const refuse = (destination: string, refusal: Refusal): Refused => {
    counters.refused++;
    opts.logger?.info("egress refused", { destination, reason: refusal.reason });
    opts.onRefused?.(destination, refusal.reason);
    return new Refused(refusal);
  };

  /** Judges `url` (its host and port) and resolves it to the one address the connection may use. */
  const judge = async (url: URL, destination: string): Promise<{ address: string; family: 4 | 6; port: number }> => {
    const check = checkUrl(url.href, opts.allowPrivateHosts);
    if (!check.ok) throw refuse(destination, { status: 403, reason: `destination refused: ${check.reason}` });
    const port = effectivePort(check.url);
    try {
      const target = await resolvePublic(check.url.hostname, port, opts.allowPrivateHosts, opts.resolver);
      return { ...target, port };
    } catch (err) {
      if (err instanceof AddressPolicyError && err.kind === "blocked") {
        throw refuse(destination, { status: 403, reason: `destination refused: ${err.message}` });
      }
      throw refuse(destination, { status: 502, reason: err instanceof Error ? err.message : String(err) });
    }
  };

  /** A TCP connection to the judged address, bounded by the connect timeout. */
  const connect = (target: { address: string; family: 4 | 6; port: number }, destination: string): Promise<net.Socket> =>
    new Promise((resolve, reject) => {
      const upstream = net.connect({ host: target.address, port: target.port, family: target.family });
      track(upstream);
      const timer = setTimeout(() => {
        upstream.destroy();
        reject(refuse(destination, { status: 504, reason: `no connection to ${destination} within ${connectTimeoutMs} ms` }));
      }, connectTimeoutMs);
      upstream.once("connect", () => {
        clearTimeout(timer);
        counters.connections++;
        upstream.setTimeout(idleTimeoutMs, () => upstream.destroy());
        upstreams.add(upstream);
        upstream.once("close", () => {
          upstreams.delete(upstream);
          counters.rxBytes += upstream.bytesRead;
          counters.txBytes += upstream.bytesWritten;
        });
        resolve(upstream);
      });
      upstream.once("error", (err) => {
        clearTimeout(timer);
        reject(
          refuse(destination, {
            status: 502,
            reason: `could not connect to ${destination}: ${(err as { code?: string }).code ?? err.message}`,
          }),
        );
      });
    });

  const keepAlive = new http.Agent({
    keepAlive: true,
    maxSockets: 8,
    maxFreeSockets: 4,
    timeout: idleTimeoutMs,
    scheduling: "lifo",
  });
  const counted = new WeakSet<net.Socket>();
  /** Counts a kept-alive connection once, however many requests it carries. */
  const countUpstream = (socket: net.Socket) => {
    if (counted.has(socket)) return;
    counted.add(socket);
    upstreams.add(socket);
    socket.once("connect", () => counters.connections++);
    socket.once("close", () => {
      upstreams.delete(socket);
      counters.rxBytes += socket.bytesRead;
      counters.txBytes += socket.bytesWritten;
    });
  };

  /** Joins two sockets; either side's end or error ends both. */
  const splice = (a: Duplex, b: net.Socket) => {
    a.pipe(b);
    b.pipe(a);
    const end = () => {
      a.destroy();
      b.destroy();
    };
    a.once("close", end);
    b.once("close", end);
  };

  /** Absolute-form `http:` requests. */
  const onRequest = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    // A refused or unreachable destination closes the browser's connection without an answer: the
    // page sees a network error (as for a failed CONNECT), never a made-up HTTP response.
    const fail = (_refusal: Refusal) => {
      res.socket?.destroy();
      res.destroy();
    };
    let url: URL;
    try {
      url = new URL(req.url ?? "");
    } catch {
      // Origin-form: someone asked the proxy itself for a page. It serves none.
      res.writeHead(400, { "content-type": "text/plain; charset=utf-8", connection: "close" });
      return void res.end("Osprey egress proxy: a forward proxy serves no pages of its own\n");
    }
    if (url.protocol !== "http:") return fail({ status: 403, reason: `scheme ${url.protocol} is not proxied as a request` });
    const destination = url.host;
    try {
      const target = await judge(url, destination);
      if (closed || req.destroyed) return;
      // Connections to the judged address are kept alive and reused (by address and port, never
      // by name): a page's many plain-http requests do not each pay for a new connection.
      const proxied = http.request({
        agent: keepAlive,
        host: target.address,
        port: target.port,
        family: target.family,
        method: req.method,
        path: `${url.pathname}${url.search}`,
        // RFC 9112 3.2.2: a proxy replaces Host with the request-target's authority.
        headers: ["Host", url.host, ...withoutHost(forwardHeaders(req.rawHeaders, false))],
        setHost: false,
      });
      const connectTimer = setTimeout(() => {
        counters.refused++;
        proxied.destroy();
      }, connectTimeoutMs);
      proxied.on("socket", (socket: net.Socket) => {
        countUpstream(socket);
        if (!socket.connecting) clearTimeout(connectTimer);
        else socket.once("connect", () => clearTimeout(connectTimer));
      });
      proxied.on("error", () => {
        clearTimeout(connectTimer);
        fail({ status: 502, reason: `the connection to ${destination} failed` });
      });
      proxied.on("response", (answer) => {
        clearTimeout(connectTimer);
        const headers = forwardHeaders(answer.rawHeaders, false);
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, headers);
        answer.pipe(res);
        answer.on("error", () => res.destroy());
      });
      res.on("close", () => {
        if (!res.writableFinished) proxied.destroy();
      });
      req.pipe(proxied);
    } catch (err) {
      fail(err instanceof Refused ? err.refusal : { status: 502, reason: "the proxy failed" });
    }
  };

  /** CONNECT host:port: https, wss (and ws, as Chromium sends it). */
  const onConnect = async (req: http.IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    const authority = req.url ?? "";
    const url = authorityUrl(authority);
    if (!url) return refuseSocket(client, { status: 403, reason: "not a host:port destination" });
    try {
      const target = await judge(url, authority);
      if (closed || client.destroyed) return;
      const upstream = await connect(target, authority);
      if (client.destroyed) return void upstream.destroy();
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      splice(client, upstream);
    } catch (err) {
      refuseSocket(client, err instanceof Refused ? err.refusal : { status: 502, reason: "the proxy failed" });
    }
  };

  /** Absolute-form upgrades (plain `ws:` from clients that do not tunnel it). */
  const onUpgrade = async (req: http.IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    let url: URL;
    try {
      url = new URL(req.url ?? "");
    } catch {
      return refuseSocket(client, { status: 403, reason: "this is a forward proxy; it serves no pages of its own" });
    }
    if (url.protocol !== "http:" && url.protocol !== "ws:") {
      return refuseSocket(client, { status: 403, reason: `scheme ${url.protocol} is not proxied as an upgrade` });
    }
    const asHttp = new URL(`http://${url.host}${url.pathname}${url.search}`);
    try {
      const target = await judge(asHttp, asHttp.host);
      if (closed || client.destroyed) return;
      const upstream = await connect(target, asHttp.host);
      const headers = ["Host", asHttp.host, ...withoutHost(forwardHeaders(req.rawHeaders, true))];
      let requestHead = `${req.method} ${asHttp.pathname}${asHttp.search} HTTP/1.1\r\n`;
      for (let i = 0; i < headers.length; i += 2) requestHead += `${headers[i]}: ${headers[i + 1]}\r\n`;
      upstream.write(`${requestHead}\r\n`);
      if (head.length > 0) upstream.write(head);
      splice(client, upstream);
    } catch (err) {
      refuseSocket(client, err instanceof Refused ? err.refusal : { status: 502, reason: "the proxy failed" });
    }
  };

  const server = http.createServer({ requestTimeout: 0, headersTimeout: 30_000 });
  server.maxConnections = opts.maxConnections ?? 1024;
  server.on("connection", (socket: net.Socket) => {
    track(socket);
    socket.setTimeout(idleTimeoutMs, () => socket.destroy());
  });
  server.on("request", (req, res) => void onRequest(req, res));
  server.on("connect", (req, socket, head) => void onConnect(req, socket, head));
  server.on("upgrade", (req, socket, head) => void onUpgrade(req, socket, head));
  server.on("clientError", (_err, socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.on("error", (err) => opts.logger?.warn("egress proxy server error", { error: err.message }));
  const port = (server.address() as net.AddressInfo).port;

  let closing: Promise<void> | null = null;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    counters: () => {
      const now = { ...counters };
      for (const u of upstreams) {
        now.rxBytes += u.bytesRead;
        now.txBytes += u.bytesWritten;
      }
      return now;
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        closed = true;
        keepAlive.destroy();
        server.close(() => resolve());
        for (const s of open) s.destroy();
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
