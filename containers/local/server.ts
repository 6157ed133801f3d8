import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createLocalApp, VERSION } from "../../functions/app.ts";
import type { Config } from "../../functions/config/config.ts";
import { missingModelSettings } from "../../functions/config/model-settings.ts";
import { createExtractorPool } from "../../functions/extract/pool.ts";
import { buildFetch } from "../../functions/fetch/build.ts";
import { unavailableRenderer } from "../../functions/fetch/renderer.ts";
import { systemClock } from "../../functions/lib/clock.ts";
import { defaultIds } from "../../functions/lib/ids.ts";
import { createLogger } from "../../functions/lib/logger.ts";
import { waitAtMost } from "../../functions/lib/wait.ts";
import { profileService } from "../../functions/profiles/profile.service.ts";
import { profileStore } from "../../functions/profiles/profile.store.ts";
import { buildRuns } from "../../functions/runs/build.ts";
import { runLifecycle } from "../../functions/runs/run-lifecycle.ts";
import { createRunNotifier } from "../../functions/runs/run-notifier.ts";
import { createIndexFeed } from "../../functions/search/index-feed.ts";
import { createLocalIndex } from "../../functions/search/local/local-index.ts";
import { providersFromConfig } from "../../functions/search/providers/from-config.ts";
import { searchService } from "../../functions/search/search.service.ts";
import { ensureFirstAccount } from "../../functions/services/bootstrap.service.ts";
import { openBlobStore } from "../../functions/storage/open-blob-store.ts";
import { externalVaultProviders } from "../../functions/vault/providers/external.ts";
import { runCredentials } from "../../functions/vault/run-credentials.ts";
import { vaultService } from "../../functions/vault/vault.service.ts";
import { createChromiumRenderer } from "../browser/chromium-pool.ts";
import { buildSessions, serveCdpUpgrades } from "../sessions/build.ts";
import { describeAdapters, detectChromium } from "./adapters.ts";
import { type AdminHandler, type AdminSocket, listenAdminSocket } from "./admin-socket.ts";
import { answerClientErrors, SERVER_OPTIONS } from "./client-errors.ts";
import { installProcessGuard } from "./process-guard.ts";
import { createQueue, createWorkerStack, deadLetterFailsRun } from "./run-stack.ts";
import { openRuntime, type Runtime } from "./runtime.ts";
import { vaultKeyring } from "./vault-key.ts";

const CACHE_RETENTION_MS = 7 * 86_400_000;

export interface ServeOptions {
  /** Where the banner goes (stdout); logs go to stderr. */
  print: (line: string) => void;
  /**
   * What runs a CLI command sent to the admin socket (embedded database only), given the open
   * runtime; without it there is no admin socket. The CLI passes it in (containers/cli/remote.ts),
   * so the server does not depend on the CLI's commands.
   */
  adminHandler?: (runtime: Runtime) => AdminHandler;
}

/**
 * The admin socket, listening as soon as this process holds the data dir (a CLI command sent
 * during start-up waits for `ready`). Null, with a warning, when it cannot be made safely: the
 * server runs on, and the CLI then says the data dir is in use.
 */
async function startAdminSocket(
  config: Config,
  logger: ReturnType<typeof createLogger>,
  ready: Promise<AdminHandler>,
): Promise<AdminSocket | null> {
  try {
    const admin = await listenAdminSocket({ dataDir: config.dataDir, logger, handler: ready });
    logger.info("admin socket listening (the CLI runs its commands here while the server runs)", { path: admin.path });
    return admin;
  } catch (err) {
    logger.warn("no admin socket: CLI commands need the server stopped", { error: err });
    return null;
  }
}

function baseUrl(host: string, port: number): string {
  const shown = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  return `http://${shown.includes(":") ? `[${shown}]` : shown}:${port}`;
}

/**
 * `npm start`: one process serving every surface (ARCHITECTURE.md, single machine). Resolves once
 * listening; SIGINT/SIGTERM stop accepting, let in-flight requests finish (bounded by
 * OSPREY_SHUTDOWN_TIMEOUT_MS), close the database and exit.
 */
export async function startServer(config: Config, opts: ServeOptions): Promise<void> {
  const logger = createLogger(config.logLevel);
  installProcessGuard(logger);
  let admin: AdminSocket | null = null;
  let adminReady: (handler: AdminHandler) => void = () => {};
  let adminFailed: (err: unknown) => void = () => {};
  const adminHandler = new Promise<AdminHandler>((resolve, reject) => {
    adminReady = resolve;
    adminFailed = reject;
  });
  adminHandler.catch(() => {});
  const closeAdmin = async (graceMs: number) => {
    await admin?.close(graceMs);
    admin = null;
  };
  // First start can take a while (PGlite creating its files, migrations, the browser pool): say
  // what is happening, with timings, before the banner.
  const runtime = await openRuntime(config, "serve", {
    progress: (msg, fields) => logger.info(msg, fields),
    afterLock: async () => {
      if (opts.adminHandler && config.database.driver === "pglite") admin = await startAdminSocket(config, logger, adminHandler);
    },
  }).catch(async (err) => {
    adminFailed(err);
    await closeAdmin(0);
    throw err;
  });
  const firstStart = await ensureFirstAccount(runtime.services).catch(async (err) => {
    adminFailed(err);
    await closeAdmin(0);
    await runtime.close();
    throw err;
  });
  if (opts.adminHandler) adminReady(opts.adminHandler(runtime));
  const chromiumAt = performance.now();
  const chromium = detectChromium(config);
  logger.info(chromium.path ? "Chromium found" : "no Chromium: rendering and browser features are off", {
    ...(chromium.path ? { path: chromium.path } : { reason: chromium.reason }),
    ms: Math.round(performance.now() - chromiumAt),
  });
  const renderer = chromium.path
    ? createChromiumRenderer({ executablePath: chromium.path, egress: { allowPrivateHosts: config.allowPrivateHosts, logger } })
    : unavailableRenderer(chromium.reason);
  const extractor = createExtractorPool();
  const blobs = openBlobStore(config.blobStore);
  // Every successful fetch feeds the local search index, after its response (private to the
  // fetching account unless the operator shares public pages).
  const localIndex = createLocalIndex({ db: runtime.database.db });
  const indexFeed = createIndexFeed(localIndex.writer, { logger, sharePublicPages: config.search.sharePublicPages });
  const fetchApi = buildFetch({
    config,
    db: runtime.database.db,
    clock: systemClock,
    ids: defaultIds,
    logger,
    renderer,
    extractor,
    blobs,
    index: indexFeed,
  });
  // Cached responses older than a week are dropped hourly (ttl-less callers accept any entry, so
  // without this the cache would only grow).
  const purge = setInterval(() => {
    fetchApi.cache
      .purge(new Date(Date.now() - CACHE_RETENTION_MS))
      .catch((err) => logger.warn("cache purge failed", { error: err }));
  }, 3_600_000);
  purge.unref();
  let listeningUrl = `http://127.0.0.1:${config.port}`;
  const publicUrl = () => config.publicUrl ?? listeningUrl;
  const db = runtime.database.db;
  // One lifecycle for the API and the in-process worker: a run they finish wakes its readers at once.
  const lifecycle = runLifecycle({ db, notifier: createRunNotifier(), publicUrl });
  const queue = await createQueue(config, db, deadLetterFailsRun({ lifecycle, logger }), logger);
  // The vault's key is read (or made, 0600, on the embedded default) now: a bad key file stops start-up.
  const keyring = vaultKeyring(config);
  const vaultProviders = externalVaultProviders();
  // use_vault runs: the API checks credential_item_ids, the in-process worker reveals values at fill time.
  const credentials = runCredentials({ db, keyring, providers: vaultProviders });
  // Browser Context Profiles, sealed with the vault key: the API, runs and sessions share one store.
  const profilesStore = profileStore({ db, keyring, logger });
  const runs = buildRuns({
    lifecycle,
    queue,
    blobs,
    logger,
    model: config.model,
    allowPrivateHosts: config.allowPrivateHosts,
    credentials,
    profiles: profilesStore,
  });
  const workers = config.worker
    ? createWorkerStack({ config, db, queue, lifecycle, blobs, extractor, logger, credentials, profiles: profilesStore })
    : null;
  const upstreams = providersFromConfig(config.search);
  const search = config.search.enabled
    ? searchService({
        db,
        clock: systemClock,
        logger,
        rateLimits: runtime.services.rateLimits,
        providers: [localIndex.provider, ...upstreams],
        // A search finds the pages its account has just fetched (the feed writes them after the response).
        ownWrites: (accountId) => indexFeed.writtenFor(accountId),
      })
    : null;
  // Remote browser sessions: a warm pool of Chromium processes in this process, one per session.
  const browserSessions =
    chromium.path && config.browser.sessionsEnabled
      ? buildSessions({
          config,
          db,
          services: runtime.services,
          logger,
          executablePath: chromium.path,
          prefix: "/browser",
          publicBase: () => `${publicUrl()}/browser`,
          profiles: profilesStore,
        })
      : null;
  const sessionHost = browserSessions?.host ?? null;
  const sessions = browserSessions?.sessions ?? null;
  const vault = vaultService({ db, clock: systemClock, logger, keyring, providers: vaultProviders });
  // Browser Context Profiles: each domain's state sealed with the vault keyring (profileStore is what loads and saves it).
  const profiles = profileService({ db, clock: systemClock, store: profilesStore });
  const app = createLocalApp({
    services: runtime.services,
    ids: defaultIds,
    logger,
    fetch: fetchApi,
    runs,
    search,
    sessions,
    vault,
    profiles,
  });
  const closeAdapters = async () => {
    clearInterval(purge);
    // CLI commands in flight finish first (they use the database), within the shutdown budget.
    await closeAdmin(config.shutdownTimeoutMs);
    // Runs in flight get the shutdown budget to finish; the rest are requeued or failed by the worker.
    await workers?.stop(config.shutdownTimeoutMs);
    await sessionHost?.close();
    await Promise.allSettled([renderer.close(), extractor.close(), queue.close()]);
    // Pages already fetched reach the index before the database closes (bounded wait).
    await waitAtMost(indexFeed.whenIdle(), 5_000);
    await runtime.close();
  };

  const server = serve({ fetch: app.fetch, hostname: config.host, port: config.port, serverOptions: SERVER_OPTIONS });
  answerClientErrors(server as Server);
  serveCdpUpgrades(server, sessionHost);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("listening", resolve);
      server.once("error", reject);
    });
  } catch (err) {
    await closeAdapters();
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE")
      throw new Error(`port ${config.port} on ${config.host} is already in use (set PORT to another one)`);
    if (code === "EADDRNOTAVAIL") throw new Error(`HOST ${config.host} is not an address of this machine`);
    throw err;
  }
  const port = (server.address() as AddressInfo).port;
  const url = baseUrl(config.host, port);
  listeningUrl = url;
  workers?.start();
  if (sessionHost) logger.info("warming the browser pool in the background", { browsers: config.browser.warmPool });
  sessionHost?.pool.start();

  const lines = [
    `Osprey ${VERSION} is listening on ${url}`,
    "",
    `  automation  ${url}/v1`,
    `  fetch       ${url}/fetch`,
    `  search      ${url}/search${search ? "" : "    (off: OSPREY_SEARCH=off)"}`,
    `  browser     ${url}/browser${sessionHost ? `   (warm pool ${config.browser.warmPool}, at most ${config.browser.maxSessions} sessions)` : `   (off: ${config.browser.sessionsEnabled ? "no Chromium" : "OSPREY_BROWSER_SESSIONS=off"})`}`,
    `  reference   ${url}/docs  (OpenAPI: ${url}/openapi.json)`,
    "",
    `  data dir    ${config.dataDir}`,
    ...describeAdapters(config, runtime.database.description).map(([k, v]) => `  ${k.padEnd(10)}  ${v}`),
    `  workers     ${workers ? `in process, ${config.workerConcurrency} runs at once; webhooks dispatched here` : "off (OSPREY_WORKER=off: run `osprey worker` elsewhere)"}`,
  ];
  const missing = missingModelSettings(config.model);
  if (missing.length > 0) {
    lines.push("", `Automation runs are refused (403) until a model is configured: set ${missing.join(", ")}.`);
  }
  if (firstStart) {
    lines.push(
      "",
      `First start: created account ${firstStart.account.id} (plan pro, ${firstStart.account.creditBalance} credits) and an API key.`,
      "The key is shown this once and cannot be recovered; store it now:",
      "",
      `    ${firstStart.key}`,
      "",
      `  curl -H "X-API-Key: ${firstStart.key}" ${url}/v1/account`,
    );
  }
  opts.print(`${lines.join("\n")}\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      logger.warn("second signal: exiting without waiting", { signal });
      process.exit(1);
    }
    stopping = true;
    logger.info("shutting down", { signal, timeout_ms: config.shutdownTimeoutMs });
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    if ("closeIdleConnections" in server) server.closeIdleConnections();
    const timer = setTimeout(() => {
      logger.warn("in-flight requests did not finish in time; closing their connections");
      if ("closeAllConnections" in server) server.closeAllConnections();
    }, config.shutdownTimeoutMs);
    await closed;
    clearTimeout(timer);
    await closeAdapters();
    logger.info("stopped");
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}
