import type { Server } from "node:http";
import type { Http2SecureServer, Http2Server } from "node:http2";
import type { Config } from "../../functions/config/config.ts";
import type { Db } from "../../functions/db/db.ts";
import { systemClock } from "../../functions/lib/clock.ts";
import type { Logger } from "../../functions/lib/logger.ts";
import type { ProfileStore } from "../../functions/profiles/profile.types.ts";
import type { Services } from "../../functions/services/index.ts";
import { type SessionService, sessionService } from "../../functions/sessions/session.service.ts";
import { sessionTargetSetup } from "./prepare-target.ts";
import { createLocalSessionHost, type LocalSessionHost } from "./session-host.ts";

/**
 * The browser sessions of one process, as both composition roots build them: `npm start` (under
 * /browser beside the other surfaces) and a browser container (`osprey worker` with
 * OSPREY_BROWSER_PORT, at its root). The host's pool starts filling only when `host.pool.start()`
 * is called, once the process listens.
 */
export function buildSessions(o: {
  config: Config;
  db: Db;
  services: Services;
  logger: Logger;
  executablePath: string;
  /** Where the surface is mounted: "/browser" or "". */
  prefix: string;
  /** The public base of the surface (cdp_url and live_view_url start with it); read when needed. */
  publicBase: () => string;
  /** Browser Context Profiles sessions may start from (profile_id); absent: none exist here. */
  profiles?: ProfileStore;
}): { host: LocalSessionHost; sessions: SessionService } {
  const { config, db, services, logger } = o;
  const host = createLocalSessionHost({
    db,
    clock: systemClock,
    logger,
    executablePath: o.executablePath,
    allowPrivateHosts: config.allowPrivateHosts,
    warmPool: config.browser.warmPool,
    maxSessions: config.browser.maxSessions,
    authenticate: (key) => services.apiKeys.authenticate(key),
    prefix: o.prefix,
    prepareTarget: sessionTargetSetup,
    hostUrl: config.browser.hostUrl,
    ...(o.profiles ? { profiles: o.profiles } : {}),
  });
  const sessions = sessionService({
    db,
    clock: systemClock,
    logger,
    rateLimits: services.rateLimits,
    host,
    browser: config.browser,
    allowPrivateHosts: config.allowPrivateHosts,
    publicBase: o.publicBase,
    ...(o.profiles ? { profiles: o.profiles } : {}),
  });
  return { host, sessions };
}

/** CDP websockets (`<prefix>/<id>/cdp`) go to the session host; any other upgrade is a 404. */
export function serveCdpUpgrades(server: Server | Http2Server | Http2SecureServer, host: LocalSessionHost | null): void {
  (server as Server).on("upgrade", (req, socket, head) => {
    if (host?.handleUpgrade(req, socket, head)) return;
    socket.on("error", () => {});
    socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
  });
}
