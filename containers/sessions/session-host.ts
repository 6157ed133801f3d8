import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import WebSocket, { WebSocketServer } from "ws";
import type { AllowedHost } from "../../functions/config/config.ts";
import type { Db } from "../../functions/db/db.ts";
import { isAppError } from "../../functions/lib/app-error.ts";
import type { Clock } from "../../functions/lib/clock.ts";
import { newId } from "../../functions/lib/ids.ts";
import type { Logger } from "../../functions/lib/logger.ts";
import type { Resolver } from "../../functions/net/address-policy.ts";
import type { ProfileStore } from "../../functions/profiles/profile.types.ts";
import type { AuthContext } from "../../functions/services/api-key.service.ts";
import { type BrowserSessionRow, sessionRepo } from "../../functions/sessions/session.repo.ts";
import { type SessionHost, SessionHostBusyError, type SessionLaunch } from "../../functions/sessions/session-host.ts";
import { launchChromium } from "../browser/chromium-process.ts";
import { bindProfile, type ProfileBinding } from "../browser/profile-binding.ts";
import { type LiveSession, openLiveSession, type PrepareTarget } from "./live-session.ts";
import { createWarmPool, type WarmPool } from "./warm-pool.ts";

/**
 * The in-process session host: Chromium processes from a warm pool, one per session, the CDP
 * websocket relays, the timers that end sessions (hard cap, inactivity) and the usage they write.
 * `npm start` runs one inside the server; a browser container runs one behind the load balancer.
 */

export interface LocalSessionHostOptions {
  db: Db;
  clock: Clock;
  logger: Logger;
  executablePath: string;
  allowPrivateHosts: AllowedHost[];
  resolver?: Resolver;
  warmPool: number;
  maxSessions: number;
  /** X-API-Key on a CDP connection (the alternative to the URL's token). */
  authenticate: (key: string | undefined) => Promise<AuthContext>;
  /** Where the browser surface is mounted: "/browser" in the single-machine server, "" in a container. */
  prefix: string;
  /** Viewport and stealth for each new target of a session (stealth.ts). */
  prepareTarget: (launch: SessionLaunch, version: string) => PrepareTarget;
  hostId?: string;
  /** Where other hosts reach this one (OSPREY_BROWSER_HOST_URL); null: the only host. */
  hostUrl?: string | null;
  /** How often timers are checked. Default 1 s. */
  tickMs?: number;
  /** How often open sessions' byte counts and liveness are written. Default 15 s. */
  heartbeatMs?: number;
  /** An open session whose host has not written for this long is ended as host_lost. Default 60 s. */
  lostAfterMs?: number;
  /** Browser Context Profiles: loaded into a session's browser at start, written back as its launch says. */
  profiles?: Pick<ProfileStore, "load" | "save">;
}

export interface LocalSessionHost extends SessionHost {
  /** Handles an upgrade under `<prefix>/<id>/cdp`; false when the path is not a session's (the caller answers). */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  pool: WarmPool;
  live(): number;
  /** Ends every session (host_stopped) and the pool. */
  close(): Promise<void>;
}

const CDP_PATH = /^\/([A-Za-z0-9_]{1,200})\/cdp\/?$/;

/** A plain HTTP answer on a socket whose upgrade is refused, in the spec's error shape. */
function refuseUpgrade(socket: Duplex, status: number, code: string, message: string): void {
  const body = JSON.stringify({ error: { code, message }, request_id: newId("req") });
  const reason =
    { 400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 410: "Gone", 503: "Service Unavailable" }[status] ?? "Error";
  if (!socket.writable) return void socket.destroy();
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** Constant-time token check; lengths compared in bytes (timingSafeEqual throws on unequal lengths). */
function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given, "utf8");
  const b = Buffer.from(expected, "utf8");
  return a.length === b.length && timingSafeEqual(a, b);
}

export function createLocalSessionHost(opts: LocalSessionHostOptions): LocalSessionHost {
  const hostId = opts.hostId ?? newId("host");
  const bornAt = opts.clock.now();
  const hostUrl = opts.hostUrl ?? null;
  const repo = sessionRepo(opts.db);
  const log = opts.logger;
  const sessions = new Map<string, LiveSession>();
  /** The profile each session started from (only sessions with one). */
  const bindings = new Map<string, ProfileBinding>();
  const starting = new Set<string>();
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 64 * 1024 * 1024 });
  let closed = false;

  const pool = createWarmPool({
    size: opts.warmPool,
    logger: log,
    launch: () =>
      launchChromium(
        opts.executablePath,
        30_000,
        { allowPrivateHosts: opts.allowPrivateHosts, resolver: opts.resolver, logger: log },
        { websocket: true },
      ),
  });

  const write = (what: string, work: Promise<unknown>) =>
    work.catch((err: unknown) => log.warn(`browser session ${what} could not be written`, { error: err }));

  // Timers: the hard cap and inactivity, judged every tick; heartbeats (bytes, liveness) less often.
  const tickMs = opts.tickMs ?? 1000;
  const heartbeatMs = opts.heartbeatMs ?? 15_000;
  const lostAfterMs = opts.lostAfterMs ?? 60_000;
  let lastBeat = 0;
  let lastEndedCheck = 0;
  const tick = setInterval(() => {
    const now = opts.clock.now().getTime();
    // A DELETE that reached another host ended the row there: the browser ends here within a second.
    if (now - lastEndedCheck >= 1000 && sessions.size > 0) {
      lastEndedCheck = now;
      void repo
        .endedAmong([...sessions.keys()])
        .then((ids) => Promise.all(ids.map((id) => sessions.get(id)?.end("deleted"))))
        .catch(() => {});
    }
    for (const s of sessions.values()) {
      if (now >= s.launch.expiresAt.getTime()) void s.end("timeout");
      else if (s.clients() === 0 && s.idleMs(Date.now()) >= s.launch.inactivityMs) void s.end("inactivity");
    }
    if (now - lastBeat >= heartbeatMs) {
      lastBeat = now;
      void heartbeat(now);
    }
  }, tickMs);
  tick.unref();

  const heartbeat = async (now: number) => {
    const at = new Date(now);
    for (const s of sessions.values()) {
      const b = s.bytes();
      await write("bytes", repo.recordBytes(s.launch.id, b.rx, b.tx, at));
    }
    await write("heartbeat", repo.touchHost(hostId, at));
    // Sessions of a host that stopped writing (killed, lost): ended with the last counts they wrote.
    const stale = await repo.staleOpen(new Date(now - lostAfterMs)).catch(() => [] as BrowserSessionRow[]);
    for (const row of stale) {
      if (sessions.has(row.id)) continue;
      await write("end", repo.end(row.id, { reason: "host_lost", at, rxBytes: null, txBytes: null }));
    }
  };

  /** Relays a CDP client to the host that holds its session (the load balancer sent it here). */
  const forward = (req: IncomingMessage, socket: Duplex, head: Buffer, row: BrowserSessionRow) => {
    const target = `${(row.hostUrl as string).replace(/^http/, "ws")}${opts.prefix}/${row.id}/cdp?token=${row.connectToken}`;
    const upstream = new WebSocket(target, { perMessageDeflate: false, maxPayload: 512 * 1024 * 1024, handshakeTimeout: 10_000 });
    // `on`, not `once`: a second error (or one after the relay began) must never reach the process.
    upstream.on("error", () => refuseUpgrade(socket, 503, "SERVICE_BUSY", "The host holding this session could not be reached."));
    upstream.once("unexpected-response", (_r, res) =>
      refuseUpgrade(
        socket,
        res.statusCode === 404 ? 404 : 503,
        res.statusCode === 404 ? "NOT_FOUND" : "SERVICE_BUSY",
        `No open browser session ${row.id}.`,
      ),
    );
    upstream.once("open", () => {
      wss.handleUpgrade(req, socket, head, (client) => {
        client.on(
          "message",
          (data, isBinary) => upstream.readyState === WebSocket.OPEN && upstream.send(data, { binary: isBinary }),
        );
        upstream.on(
          "message",
          (data, isBinary) => client.readyState === WebSocket.OPEN && client.send(data, { binary: isBinary }),
        );
        const closeBoth = (code?: number) => {
          if (client.readyState === WebSocket.OPEN) client.close(code && code >= 4000 ? code : 1000);
          if (upstream.readyState === WebSocket.OPEN) upstream.close();
          client.terminate();
          upstream.terminate();
        };
        client.on("close", () => closeBoth());
        upstream.on("close", (code) => closeBoth(code));
        client.on("error", () => closeBoth());
        upstream.on("error", () => closeBoth());
      });
    });
  };

  const host: LocalSessionHost = {
    hostId,
    hostUrl,
    pool,
    live: () => sessions.size,

    async start(launch) {
      if (closed) throw new SessionHostBusyError("the session host is stopping");
      if (sessions.size + starting.size >= opts.maxSessions) {
        throw new SessionHostBusyError(`this host holds ${opts.maxSessions} sessions, its most`);
      }
      starting.add(launch.id);
      try {
        const { proc, warm } = await pool.take();
        let live: LiveSession;
        try {
          live = await openLiveSession({
            launch,
            proc,
            logger: log,
            prepareTarget: opts.prepareTarget(launch, proc.version),
            // A persisting session writes its profile back however it ends, while its browser still runs.
            onEnding: async (reason) => {
              const binding = bindings.get(launch.id);
              bindings.delete(launch.id);
              binding?.stop();
              if (!binding || !launch.profile?.persist || reason === "browser_exited") return;
              await binding
                .save(launch.id)
                .catch((err: unknown) => log.warn("profile not saved at session end", { session_id: launch.id, error: err }));
            },
            onConnected: () => void write("connection", repo.markConnected(launch.id, opts.clock.now())),
            onEnded: async (reason, bytes) => {
              sessions.delete(launch.id);
              const ended = await repo
                .end(launch.id, { reason, at: opts.clock.now(), rxBytes: bytes.rx, txBytes: bytes.tx })
                .catch((err: unknown) => {
                  log.warn("browser session end could not be written", { error: err });
                  return undefined;
                });
              // Ended elsewhere first (a DELETE on another host): the final counts are still this host's to write.
              if (ended === null) await write("bytes", repo.setFinalBytes(launch.id, bytes.rx, bytes.tx));
              log.info("browser session ended", { session_id: launch.id, reason, rx_bytes: bytes.rx, tx_bytes: bytes.tx });
            },
          });
        } catch (err) {
          await proc.terminate({ force: true });
          throw err;
        }
        if (launch.profile && opts.profiles) {
          // Loaded before start resolves, so no client ever sees the browser without it.
          try {
            const binding = await bindProfile({
              store: opts.profiles,
              accountId: launch.accountId,
              profileId: launch.profile.id,
              context: proc.browser.defaultBrowserContext(),
              logger: log,
            });
            if (binding) bindings.set(launch.id, binding);
            else log.warn("the session's profile is gone; starting without it", { session_id: launch.id });
          } catch (err) {
            await live.end("start_failed");
            throw err;
          }
        }
        sessions.set(launch.id, live);
        log.debug("browser session started", { session_id: launch.id, warm });
      } finally {
        starting.delete(launch.id);
      }
    },

    async end(id, reason) {
      const s = sessions.get(id);
      if (!s) return false;
      await s.end(reason);
      return true;
    },

    handleUpgrade(req, socket, head) {
      const url = new URL(req.url ?? "/", "http://host");
      const rest =
        opts.prefix && url.pathname.startsWith(`${opts.prefix}/`)
          ? url.pathname.slice(opts.prefix.length)
          : opts.prefix
            ? null
            : url.pathname;
      const m = rest === null ? null : CDP_PATH.exec(rest);
      if (!m) return false;
      socket.on("error", () => socket.destroy());
      const id = m[1] as string;
      void (async () => {
        const s = sessions.get(id);
        const token = url.searchParams.get("token");
        const key = req.headers["x-api-key"];
        if (token === null && key === undefined) {
          return refuseUpgrade(socket, 401, "MISSING_API_KEY", "Connect with the cdp_url's token, or send X-API-Key.");
        }
        // Held elsewhere (this host is one of several behind a load balancer): the row says where.
        const row = s ? null : await repo.get(id).catch(() => null);
        const expected = s?.launch.token ?? row?.connectToken ?? null;
        if (token !== null) {
          if (expected === null || !sameToken(token, expected)) {
            return refuseUpgrade(socket, 404, "NOT_FOUND", `No open browser session ${id} with this token.`);
          }
        } else {
          let auth: AuthContext;
          try {
            auth = await opts.authenticate(Array.isArray(key) ? key[0] : key);
          } catch (err) {
            const e = isAppError(err) ? err : null;
            return refuseUpgrade(socket, e?.status ?? 401, e?.code ?? "UNAUTHORIZED", e?.message ?? "Authentication failed.");
          }
          const owned = await repo.getOwned(id, auth.account.id, auth.scope).catch(() => null);
          if (!owned) return refuseUpgrade(socket, 404, "NOT_FOUND", `No open browser session ${id}.`);
        }
        if (s) return s.attach(wss, req, socket, head);
        if (row && row.status !== "ended" && row.hostId !== hostId && row.hostUrl) return forward(req, socket, head, row);
        return refuseUpgrade(socket, 404, "NOT_FOUND", `No open browser session ${id}.`);
      })().catch((err: unknown) => {
        log.warn("CDP connection failed", { session_id: id, error: err });
        refuseUpgrade(socket, 503, "SERVICE_BUSY", "The session's browser could not be reached.");
      });
      return true;
    },

    async saveProfile(id) {
      const s = sessions.get(id);
      if (!s) return "not_here";
      const binding = bindings.get(id);
      if (!binding) return "no_profile";
      try {
        await binding.save(id);
        return "saved";
      } catch (err) {
        log.warn("profile not saved", { session_id: id, error: err });
        return "not_here";
      }
    },

    async liveFrame(session) {
      const s = sessions.get(session.id);
      if (s) return s.frame();
      if (!session.hostUrl || session.hostId === hostId) return null;
      // Held by another host: its own live-view path answers with the frame (the token is the credential).
      try {
        const res = await fetch(`${session.hostUrl}${opts.prefix}/live/${session.connectToken}/frame`, {
          signal: AbortSignal.timeout(5_000),
        });
        return res.ok ? Buffer.from(await res.arrayBuffer()) : null;
      } catch {
        return null;
      }
    },

    async liveInput(session, event) {
      const s = sessions.get(session.id);
      if (s) return s.input(event);
      if (!session.hostUrl || session.hostId === hostId) return "gone";
      // Held by another host: its own live-view input path takes the event (the token is the credential).
      try {
        const res = await fetch(`${session.hostUrl}${opts.prefix}/live/${session.connectToken}/input`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(event),
          signal: AbortSignal.timeout(10_000),
        });
        await res.body?.cancel();
        if (res.status === 204) return "done";
        return res.status === 404 ? "gone" : "unreachable";
      } catch {
        return "unreachable";
      }
    },

    async close() {
      closed = true;
      clearInterval(tick);
      await Promise.all([...sessions.values()].map((s) => s.end("host_stopped")));
      await pool.close();
      wss.close();
    },
  };
  // A host that restarts under the same id (a container's task id) ends what its predecessor held.
  // Only sessions started before this host: the query may run after the host has begun to serve
  // (it is not awaited), and a session created here meanwhile is this host's own.
  void repo
    .openOnHost(hostId, bornAt)
    .then((rows) =>
      Promise.all(rows.map((r) => repo.end(r.id, { reason: "host_lost", at: opts.clock.now(), rxBytes: null, txBytes: null }))),
    )
    .catch(() => {});
  return host;
}
