import http from "node:http";
import type net from "node:net";
import type { Duplex } from "node:stream";
import type { AllowedHost } from "../../functions/config/config.ts";
import type { Logger } from "../../functions/lib/logger.ts";
import { effectivePort, type Resolver } from "../../functions/net/address-policy.ts";
import { createDialer, type EgressCounters, Refused } from "./egress-dial.ts";
import { authorityUrl, forwardHeaders, type Refusal, refuseSocket, withoutHost } from "./egress-framing.ts";
import {
  answeredWith,
  type EgressUpstream,
  openTunnel,
  proxyAuthorization,
  upgradeThrough,
  upstreamRoute,
} from "./egress-upstream.ts";

export type { EgressCounters } from "./egress-dial.ts";
export type { EgressUpstream } from "./egress-upstream.ts";

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
 *
 * With an upstream proxy set (issue "[2 of 6]": a `managed` country's proxy, or a caller's
 * `custom` one), the destination is still judged here first, by name and by every address it
 * resolves to; then the upstream is asked for the destination's name and port, so that it resolves
 * the name in its own country (egress-upstream.ts speaks to it). A caller's upstream is judged and
 * pinned like a destination; the operator's is trusted. The bytes counted are those exchanged with
 * the upstream: what leaves the machine.
 *
 * This file serves the browser's side (the three forms above, and closing); egress-dial.ts is the
 * way out: judging, connecting, the kept-alive pools and the counters.
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
  /** The proxy to chain to; none (direct) by default. A bad URL makes start fail. */
  upstream?: EgressUpstream | null;
}

export interface EgressProxy {
  /** `http://127.0.0.1:<port>`: the value for `--proxy-server` or a context's `proxyServer`. */
  url: string;
  port: number;
  counters(): EgressCounters;
  /**
   * Chains connections opened from now on to `upstream`, or sends them direct again (null); open
   * tunnels and requests in flight keep their route. A bad URL throws and changes nothing.
   */
  setUpstream(upstream: EgressUpstream | null): void;
  /** Stops accepting, cuts every open tunnel and request. Idempotent. */
  close(): Promise<void>;
}

/** What Chromium's bypass list needs so that loopback destinations come here too (it bypasses them by default). */
export const PROXY_BYPASS_LIST = "<-loopback>";

const DEFAULT_CONNECT_TIMEOUT_MS = 15_000;
const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

const EMPTY = Buffer.alloc(0);

export async function startEgressProxy(opts: EgressProxyOptions): Promise<EgressProxy> {
  const connectTimeoutMs = opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const idleTimeoutMs = opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const open = new Set<net.Socket | Duplex>();
  let closed = false;
  // Read once by each connection as it starts: setUpstream changes where later connections go.
  let upstream = upstreamRoute(opts.upstream ?? null);

  const track = (s: net.Socket | Duplex) => {
    open.add(s);
    s.once("close", () => open.delete(s));
    // Every socket here has an error listener: one failed connection never reaches the process.
    s.on("error", () => s.destroy());
  };

  const dial = createDialer({ ...opts, connectTimeoutMs, idleTimeoutMs, track });
  const { judge, upstreamHop, connect, reachUpstream, remaining, failedUpstream, whenReady, agentFor, refuse } = dial;

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
    const fail = () => {
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
    if (url.protocol !== "http:") return fail();
    const destination = url.host;
    const route = upstream;
    try {
      const target = await judge(url, destination);
      const hop = route ? await upstreamHop(route, destination) : target;
      if (closed || req.destroyed) return;
      const via = route ? `upstream proxy ${route.display}` : destination;
      const proxied = http.request({
        agent: agentFor(route),
        host: hop.host,
        port: hop.port,
        ...(hop.family ? { family: hop.family } : {}),
        method: req.method,
        // RFC 9112 3.2: absolute-form to a proxy (it resolves the name), origin-form to the origin.
        path: route ? `http://${url.host}${url.pathname}${url.search}` : `${url.pathname}${url.search}`,
        // RFC 9112 3.2.2: a proxy replaces Host with the request-target's authority.
        headers: [
          "Host",
          url.host,
          ...(route ? proxyAuthorization(route) : []),
          ...withoutHost(forwardHeaders(req.rawHeaders, false)),
        ],
        setHost: false,
      });
      // Once refused (or abandoned by the browser) a request reports nothing more.
      let settled = false;
      let answered = false;
      const giveUp = (refusal: Refusal | null) => {
        clearTimeout(connectTimer);
        if (settled) return;
        settled = true;
        if (refusal) refuse(destination, refusal);
        proxied.destroy();
        fail();
      };
      const connectTimer = setTimeout(
        () => giveUp({ status: 504, reason: `no connection to ${via} within ${connectTimeoutMs} ms` }),
        connectTimeoutMs,
      );
      proxied.on("socket", (socket: Duplex) => whenReady(socket, () => clearTimeout(connectTimer)));
      proxied.on("error", (err) => {
        const code = (err as { code?: string }).code ?? err.message;
        // After the answer began, a failure is a cut transfer, not an unreachable destination.
        giveUp(answered ? null : { status: 502, reason: `the connection to ${via} failed: ${code}` });
      });
      proxied.on("response", (answer) => {
        clearTimeout(connectTimer);
        if (route && answer.statusCode === 407) {
          // The upstream's own refusal (an origin never answers 407): a network error, as for CONNECT.
          answer.resume();
          const failure = answeredWith(route, 407, `a request to ${destination}`);
          return giveUp({ status: failure.status, reason: failure.message });
        }
        answered = true;
        const headers = forwardHeaders(answer.rawHeaders, false);
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, headers);
        answer.pipe(res);
        answer.on("error", () => res.destroy());
      });
      res.on("close", () => {
        if (res.writableFinished) return;
        settled = true;
        clearTimeout(connectTimer);
        proxied.destroy();
      });
      req.pipe(proxied);
    } catch {
      // Refused (already counted and reported) or the proxy's own failure: a network error either way.
      fail();
    }
  };

  /** CONNECT host:port: https, wss (and ws, as Chromium sends it). */
  const onConnect = async (req: http.IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    const authority = req.url ?? "";
    const url = authorityUrl(authority);
    if (!url) return refuseSocket(client, { status: 403, reason: "not a host:port destination" });
    const route = upstream;
    try {
      const target = await judge(url, authority);
      if (closed || client.destroyed) return;
      let server: net.Socket;
      let first: Buffer = EMPTY;
      if (route) {
        const deadline = Date.now() + connectTimeoutMs;
        server = await reachUpstream(route, authority, deadline);
        // The destination's name, not the address judged here: the upstream resolves it in its country.
        const asked = `${url.hostname}:${effectivePort(url)}`;
        first = await failedUpstream(openTunnel(server, route, asked, remaining(deadline)), authority);
      } else server = await connect(target, authority);
      if (client.destroyed) return void server.destroy();
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (first.length > 0) client.write(first);
      if (head.length > 0) server.write(head);
      splice(client, server);
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
    const route = upstream;
    try {
      const target = await judge(asHttp, asHttp.host);
      if (closed || client.destroyed) return;
      const headers = ["Host", asHttp.host, ...withoutHost(forwardHeaders(req.rawHeaders, true))];
      if (route) {
        const deadline = Date.now() + connectTimeoutMs;
        const server = await reachUpstream(route, asHttp.host, deadline);
        const request = { method: req.method ?? "GET", target: asHttp.href, headers, body: head };
        const answer = await failedUpstream(upgradeThrough(server, route, request, remaining(deadline)), asHttp.host);
        if (client.destroyed) return void server.destroy();
        client.write(answer);
        return splice(client, server);
      }
      const server = await connect(target, asHttp.host);
      let requestHead = `${req.method} ${asHttp.pathname}${asHttp.search} HTTP/1.1\r\n`;
      for (let i = 0; i < headers.length; i += 2) requestHead += `${headers[i]}: ${headers[i + 1]}\r\n`;
      server.write(`${requestHead}\r\n`);
      if (head.length > 0) server.write(head);
      splice(client, server);
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
    counters: () => dial.counters(),
    setUpstream(next) {
      const route = upstreamRoute(next);
      upstream = route;
      // Idle kept-alive connections of other routes are closed now (nothing may reuse them); a
      // request in flight on one finishes there, and close() still reaches it (it is tracked).
      dial.keepOnly(route);
      opts.logger?.info("egress upstream set", { upstream: route?.display ?? "direct", trusted: route?.trusted ?? null });
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        closed = true;
        dial.destroyAgents();
        server.close(() => resolve());
        for (const s of open) s.destroy();
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
