/**
 * The egress proxy's way out (egress-proxy.ts serves the browser's side): judging a destination and
 * resolving it to the one address a connection may use, connecting to it or to the upstream proxy
 * (TLS to an https:// one) within the connect timeout, the kept-alive pools for plain-http
 * requests, and the counters of what went out: the bytes, the connections, and every refusal, each
 * logged and reported as it is made.
 */
import http from "node:http";
import net from "node:net";
import type { Duplex } from "node:stream";
import tls from "node:tls";
import type { AllowedHost } from "../../functions/config/config.ts";
import type { Logger } from "../../functions/lib/logger.ts";
import { AddressPolicyError, checkUrl, effectivePort, type Resolver, resolvePublic } from "../../functions/net/address-policy.ts";
import type { Refusal } from "./egress-framing.ts";
import { proxyTlsOptions, UpstreamFailure, type UpstreamRoute } from "./egress-upstream.ts";

/** Where a connection goes: a judged destination address, or the upstream proxy. */
export type Hop = { host: string; port: number; family?: 4 | 6 };

/** A destination refused (already counted, logged and reported): how to answer the browser. */
export class Refused extends Error {
  readonly refusal: Refusal;
  constructor(refusal: Refusal) {
    super(refusal.reason);
    this.refusal = refusal;
  }
}

export interface EgressCounters {
  /** Bytes received from destinations, or from the upstream proxy when one is set (before framing). */
  rxBytes: number;
  /** Bytes sent to destinations, or to the upstream proxy. */
  txBytes: number;
  /** Connections opened to destinations or to the upstream proxy. */
  connections: number;
  /** Destinations refused by the address policy, unreachable, or failed by the upstream proxy. */
  refused: number;
}

/** What the dialer needs of the proxy's options (EgressProxyOptions), with the timeouts settled. */
export interface DialerOptions {
  allowPrivateHosts: AllowedHost[];
  resolver?: Resolver;
  logger?: Logger;
  onRefused?: (destination: string, reason: string) => void;
  connectTimeoutMs: number;
  idleTimeoutMs: number;
  /** Tracks a socket the proxy must cut on close (it gets an error listener there). */
  track(socket: net.Socket | Duplex): void;
}

/** The outbound half of one egress proxy (see the top of this file). */
export function createDialer(opts: DialerOptions) {
  const { connectTimeoutMs, idleTimeoutMs, track } = opts;
  const counters: EgressCounters = { rxBytes: 0, txBytes: 0, connections: 0, refused: 0 };
  /** Connections to destinations or the upstream still open: their bytes so far count in counters() too. */
  const upstreams = new Set<net.Socket>();

  /** Counts a connection's bytes (the raw TCP bytes, under any TLS) and the connection itself. */
  const count = (socket: net.Socket) => {
    upstreams.add(socket);
    socket.once("close", () => {
      upstreams.delete(socket);
      counters.rxBytes += socket.bytesRead;
      counters.txBytes += socket.bytesWritten;
    });
  };

  const refuse = (destination: string, refusal: Refusal): Refused => {
    counters.refused++;
    opts.logger?.info("egress refused", { destination, reason: refusal.reason });
    opts.onRefused?.(destination, refusal.reason);
    return new Refused(refusal);
  };

  /** An upstream's own failure, as a refusal of the destination the browser asked for. */
  const failedUpstream = async <T>(step: Promise<T>, destination: string): Promise<T> => {
    try {
      return await step;
    } catch (err) {
      if (err instanceof UpstreamFailure) throw refuse(destination, { status: err.status, reason: err.message });
      throw err;
    }
  };

  /**
   * Judges `url` (its host and port) and resolves it to the one address the connection may use.
   * `what` names the thing judged in the reason: the destination, or an untrusted upstream proxy.
   */
  const judge = async (url: URL, destination: string, what = "destination"): Promise<Hop> => {
    const check = checkUrl(url.href, opts.allowPrivateHosts);
    if (!check.ok) throw refuse(destination, { status: 403, reason: `${what} refused: ${check.reason}` });
    const port = effectivePort(check.url);
    try {
      const target = await resolvePublic(check.url.hostname, port, opts.allowPrivateHosts, opts.resolver);
      return { host: target.address, family: target.family, port };
    } catch (err) {
      if (err instanceof AddressPolicyError && err.kind === "blocked") {
        throw refuse(destination, { status: 403, reason: `${what} refused: ${err.message}` });
      }
      const reason = err instanceof Error ? err.message : String(err);
      // An upstream whose name does not resolve is not the page's DNS failure (isDnsFailure): worded apart.
      throw refuse(destination, { status: 502, reason: what === "destination" ? reason : `${what} is unreachable: no address` });
    }
  };

  /**
   * Where to connect for the upstream: a caller's proxy is judged and pinned like a destination (or
   * naming 127.0.0.1:6379 as one's "proxy" would reach it); the operator's goes wherever it is.
   */
  const upstreamHop = (route: UpstreamRoute, destination: string): Promise<Hop> =>
    route.trusted
      ? Promise.resolve({ host: route.host, port: route.port })
      : judge(new URL(`http://${route.authority}/`), destination, `upstream proxy ${route.display}`);

  /** A TCP connection to `hop`, bounded by the connect timeout; `what` names it in reasons. */
  const connect = (hop: Hop, destination: string, what = destination, timeoutMs = connectTimeoutMs): Promise<net.Socket> =>
    new Promise((resolve, reject) => {
      const server = net.connect({ host: hop.host, port: hop.port, ...(hop.family ? { family: hop.family } : {}) });
      track(server);
      const timer = setTimeout(() => {
        server.destroy();
        reject(refuse(destination, { status: 504, reason: `no connection to ${what} within ${connectTimeoutMs} ms` }));
      }, timeoutMs);
      const onError = (err: Error) => {
        clearTimeout(timer);
        reject(
          refuse(destination, {
            status: 502,
            reason: `could not connect to ${what}: ${(err as { code?: string }).code ?? err.message}`,
          }),
        );
      };
      server.once("error", onError);
      server.once("connect", () => {
        clearTimeout(timer);
        // A later error (a reset mid-tunnel) is not a failure to connect: nothing is refused then.
        server.off("error", onError);
        counters.connections++;
        server.setTimeout(idleTimeoutMs, () => server.destroy());
        count(server);
        resolve(server);
      });
    });

  /** TLS to an https:// upstream over `raw`, within what is left of the connect timeout. */
  const secure = (raw: net.Socket, route: UpstreamRoute, destination: string, timeoutMs: number): Promise<tls.TLSSocket> =>
    new Promise((resolve, reject) => {
      const socket = tls.connect({ socket: raw, ...proxyTlsOptions(route) });
      track(socket);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(refuse(destination, { status: 504, reason: `no TLS session with upstream proxy ${route.display} in time` }));
      }, timeoutMs);
      socket.once("secureConnect", () => {
        clearTimeout(timer);
        resolve(socket);
      });
      socket.once("error", (err) => {
        clearTimeout(timer);
        const reason = `TLS with upstream proxy ${route.display} failed: ${(err as { code?: string }).code ?? err.message}`;
        reject(refuse(destination, { status: 502, reason }));
      });
    });

  const remaining = (deadline: number) => Math.max(1, deadline - Date.now());

  /** An open connection to the upstream (TLS for https://), ready for a CONNECT or a request. */
  const reachUpstream = async (route: UpstreamRoute, destination: string, deadline: number): Promise<net.Socket> => {
    const hop = await upstreamHop(route, destination);
    const raw = await connect(hop, destination, `upstream proxy ${route.display}`, remaining(deadline));
    return route.protocol === "https:" ? secure(raw, route, destination, remaining(deadline)) : raw;
  };

  /** Sockets that are connected (TLS: handshake done), so a request's connect timer can stop. */
  const ready = new WeakSet<Duplex>();
  const whenReady = (socket: Duplex, then: () => void) => {
    if (ready.has(socket)) then();
    else socket.once(socket instanceof tls.TLSSocket ? "secureConnect" : "connect", then);
  };

  /**
   * Kept-alive connections for plain-http requests, one pool per route (direct, or one upstream as
   * set): a connection opened for one route never carries another's requests. Within the direct
   * pool connections are keyed by the judged address and port, never by name.
   */
  const agents = new Map<UpstreamRoute | null, http.Agent>();
  const agentFor = (route: UpstreamRoute | null): http.Agent => {
    const known = agents.get(route);
    if (known) return known;
    const agent = new http.Agent({
      keepAlive: true,
      maxSockets: 8,
      maxFreeSockets: 4,
      timeout: idleTimeoutMs,
      scheduling: "lifo",
    });
    agent.createConnection = (options) => {
      const raw = net.connect({
        host: String(options.host),
        port: Number(options.port),
        ...(options.family === 4 || options.family === 6 ? { family: options.family } : {}),
      });
      track(raw);
      count(raw);
      raw.once("connect", () => counters.connections++);
      if (route?.protocol !== "https:") {
        raw.once("connect", () => ready.add(raw));
        return raw;
      }
      const socket = tls.connect({ socket: raw, ...proxyTlsOptions(route) });
      track(socket);
      socket.once("secureConnect", () => ready.add(socket));
      return socket;
    };
    agents.set(route, agent);
    return agent;
  };

  return {
    refuse,
    failedUpstream,
    judge,
    upstreamHop,
    connect,
    reachUpstream,
    remaining,
    whenReady,
    agentFor,
    /** The counters, with the bytes of connections still open so far. */
    counters(): EgressCounters {
      const now = { ...counters };
      for (const u of upstreams) {
        now.rxBytes += u.bytesRead;
        now.txBytes += u.bytesWritten;
      }
      return now;
    },
    /** Closes the idle kept-alive connections of every pool but `route`'s, and forgets those pools. */
    keepOnly(route: UpstreamRoute | null): void {
      for (const [key, agent] of agents) {
        if (key === route) continue;
        for (const sockets of Object.values(agent.freeSockets)) for (const s of sockets ?? []) s.destroy();
        agents.delete(key);
      }
    },
    /** Ends every pool (on close). */
    destroyAgents(): void {
      for (const agent of agents.values()) agent.destroy();
    },
  };
}

export type Dialer = ReturnType<typeof createDialer>;
