import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { sessionTargetSetup } from "../../containers/sessions/prepare-target.ts";
import {
  createLocalSessionHost,
  type LocalSessionHost,
  type LocalSessionHostOptions,
} from "../../containers/sessions/session-host.ts";
import type { AllowedHost } from "../../functions/config/config.ts";
import type { BrowserConfig } from "../../functions/config/config-browser.ts";
import type { Db } from "../../functions/db/db.ts";
import { systemClock } from "../../functions/lib/clock.ts";
import { type Logger, silentLogger } from "../../functions/lib/logger.ts";
import type { ProfileService } from "../../functions/profiles/profile.service.ts";
import type { ProfileStore } from "../../functions/profiles/profile.types.ts";
import { sessionService } from "../../functions/sessions/session.service.ts";
import { createTestContext, type TestContext } from "./app.ts";
import { CHROME } from "./test-session.ts";

/**
 * The browser surface as `npm start` serves it: the app on a real HTTP server on 127.0.0.1 (CDP
 * clients need a websocket), the real session host with its warm pool of Chromium processes, and
 * the real egress proxy. Only what a test must shorten (timers, pool size) is an option.
 */
export interface SessionServer {
  ctx: TestContext;
  host: LocalSessionHost;
  /** http://127.0.0.1:<port> */
  url: string;
  close(): Promise<void>;
}

export async function startSessionServer(
  db: Db,
  opts: {
    allowPrivateHosts?: AllowedHost[];
    browser?: Partial<Pick<BrowserConfig, "countryProxies">>;
    host?: Partial<Omit<LocalSessionHostOptions, "db" | "authenticate">>;
    logger?: Logger;
    /** Browser Context Profiles: the API and the store sessions start from and save to. */
    profiles?: { service: ProfileService; store: ProfileStore };
  } = {},
): Promise<SessionServer> {
  let base = "http://127.0.0.1:0";
  let host: LocalSessionHost | null = null;
  const allowPrivateHosts = opts.allowPrivateHosts ?? [];
  const logger = opts.logger ?? silentLogger;
  const ctx = createTestContext(db, {
    logger,
    sessions: ({ services }) => {
      host = createLocalSessionHost({
        db,
        clock: systemClock,
        logger,
        executablePath: CHROME,
        allowPrivateHosts,
        warmPool: 1,
        maxSessions: 8,
        authenticate: (key) => services.apiKeys.authenticate(key),
        prefix: "/browser",
        prepareTarget: sessionTargetSetup,
        tickMs: 100,
        ...(opts.profiles ? { profiles: opts.profiles.store } : {}),
        ...opts.host,
      });
      return sessionService({
        db,
        clock: systemClock,
        logger,
        rateLimits: services.rateLimits,
        host,
        browser: { countryProxies: opts.browser?.countryProxies ?? {} },
        allowPrivateHosts,
        publicBase: () => `${base}/browser`,
        ...(opts.profiles ? { profiles: opts.profiles.store } : {}),
      });
    },
    ...(opts.profiles ? { profiles: () => (opts.profiles as { service: ProfileService }).service } : {}),
  });
  // Rate limits count on the test clock; move it to now so their windows are today's.
  ctx.clock.set(Date.now());
  const server = serve({ fetch: ctx.app.fetch, hostname: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const h = host as LocalSessionHost | null;
  if (!h) throw new Error("the session host was not built");
  server.on("upgrade", (req, socket, head) => {
    if (!h.handleUpgrade(req, socket, head)) socket.destroy();
  });
  return {
    ctx,
    host: h,
    url: base,
    async close() {
      await h.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ("closeAllConnections" in server) server.closeAllConnections();
      });
    },
  };
}
