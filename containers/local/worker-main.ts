import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import { createBrowserApp } from "../../functions/app.ts";
import type { Config } from "../../functions/config/config.ts";
import { createExtractorPool } from "../../functions/extract/pool.ts";
import { type Renderer, unavailableRenderer } from "../../functions/fetch/renderer.ts";
import { defaultIds } from "../../functions/lib/ids.ts";
import { createLogger } from "../../functions/lib/logger.ts";
import type { ProfileStore } from "../../functions/profiles/profile.types.ts";
import { runLifecycle } from "../../functions/runs/run-lifecycle.ts";
import { createRunNotifier } from "../../functions/runs/run-notifier.ts";
import { openBlobStore } from "../../functions/storage/open-blob-store.ts";
import { createChromiumRenderer } from "../browser/chromium-pool.ts";
import { buildSessions, serveCdpUpgrades } from "../sessions/build.ts";
import { startHealthEndpoint } from "../worker/health-endpoint.ts";
import { type RenderEndpoint, startRenderEndpoint } from "../worker/render-endpoint.ts";
import { detectChromium } from "./adapters.ts";
import { answerClientErrors, SERVER_OPTIONS } from "./client-errors.ts";
import { installProcessGuard } from "./process-guard.ts";
import { createQueue, createWorkerStack, deadLetterFailsRun, workerProfiles } from "./run-stack.ts";
import { openRuntime, type Runtime } from "./runtime.ts";

/**
 * `osprey worker`: a run worker and webhook dispatcher without the HTTP API, for a second process
 * or machine beside a server started with OSPREY_WORKER=off (or beside another worker). It shares
 * the server's database (Postgres: DATABASE_URL; the embedded PGlite allows one process only) and
 * queue. SIGINT/SIGTERM drain in-flight runs for up to OSPREY_SHUTDOWN_TIMEOUT_MS. It is also the
 * browser container's entry point (containers/Dockerfile), where OSPREY_HEALTH_PORT turns on the
 * endpoint its HEALTHCHECK asks, and OSPREY_RENDER_PORT (with OSPREY_RENDERER_SECRET) the internal
 * render endpoint the edge's fetch renders pages through (off unless set).
 */
export async function startWorker(config: Config, opts: { print: (line: string) => void }): Promise<void> {
  const logger = createLogger(config.logLevel);
  installProcessGuard(logger);
  const runtime = await openRuntime(config, "worker");
  const db = runtime.database.db;
  const publicUrl = () => config.publicUrl ?? `http://127.0.0.1:${config.port}`;
  const lifecycle = runLifecycle({ db, notifier: createRunNotifier(), publicUrl });
  const queue = await createQueue(config, db, deadLetterFailsRun({ lifecycle, logger }), logger);
  const extractor = createExtractorPool();
  const blobs = openBlobStore(config.blobStore);
  const stack = createWorkerStack({ config, db, queue, lifecycle, blobs, extractor, logger });
  let stopping = false;
  // Listening before the worker takes runs: a taken port stops start-up before any run is claimed.
  const health =
    config.workerHealthPort === null
      ? null
      : await startHealthEndpoint({
          host: config.host,
          port: config.workerHealthPort,
          state: {
            accepting: () => !stopping,
            details: () => ({ worker: stack.worker.id, runs_in_flight: stack.worker.inflight() }),
          },
        }).catch(async (err: unknown) => {
          await Promise.allSettled([extractor.close(), queue.close(), stack.browsers.close()]);
          await runtime.close();
          throw new Error(`health endpoint: cannot listen on ${config.host}:${config.workerHealthPort} (OSPREY_HEALTH_PORT)`, {
            cause: err,
          });
        });
  const rendering = await startRendering(config, logger).catch(async (err: unknown) => {
    await Promise.allSettled([extractor.close(), queue.close(), stack.browsers.close(), health?.close()]);
    await runtime.close();
    throw err;
  });
  const browserApi = await startBrowserApi(config, runtime, logger).catch(async (err: unknown) => {
    await Promise.allSettled([extractor.close(), queue.close(), stack.browsers.close(), health?.close(), rendering?.close()]);
    await runtime.close();
    throw err;
  });
  stack.start();
  opts.print(
    `Osprey worker ${stack.worker.id} started: ${config.workerConcurrency} runs at once, queue ${queue.description}, database ${runtime.database.description}, artifacts ${blobs.description}${health ? `, health http://${config.host}:${health.port}/healthz` : ""}${rendering ? `, render ${rendering.endpoint.url}` : ""}${browserApi ? `, browser sessions ${browserApi.url}` : ""}\n`,
  );
  const stop = async (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info("worker shutting down", { signal, drain_ms: config.shutdownTimeoutMs });
    await stack.stop(config.shutdownTimeoutMs);
    await Promise.allSettled([extractor.close(), queue.close(), health?.close(), rendering?.close(), browserApi?.close()]);
    await runtime.close();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

/**
 * The internal render endpoint, when OSPREY_RENDER_PORT is set: its own Chromium renderer (started
 * on the first render, closed when idle), apart from the run browsers, behind the shared secret.
 */
async function startRendering(
  config: Config,
  logger: ReturnType<typeof createLogger>,
): Promise<{ endpoint: RenderEndpoint; close(): Promise<void> } | null> {
  if (config.workerRenderPort === null || config.renderSecret === null) return null;
  const chromium = detectChromium(config);
  const renderer: Renderer = chromium.path
    ? createChromiumRenderer({ executablePath: chromium.path, egress: { allowPrivateHosts: config.allowPrivateHosts, logger } })
    : unavailableRenderer(chromium.reason);
  const endpoint = await startRenderEndpoint({
    renderer,
    secret: config.renderSecret,
    allowPrivateHosts: config.allowPrivateHosts,
    logger,
    host: config.host,
    port: config.workerRenderPort,
  }).catch(async (err: unknown) => {
    await renderer.close();
    throw new Error(`render endpoint: cannot listen on ${config.host}:${config.workerRenderPort} (OSPREY_RENDER_PORT)`, {
      cause: err,
    });
  });
  return {
    endpoint,
    close: async () => {
      await endpoint.close();
      await renderer.close();
    },
  };
}

/**
 * The browser session API of a browser container, when OSPREY_BROWSER_PORT is set: sessions held
 * here, CDP websockets for them (and forwarded to the container that holds one, by the session's
 * host URL, when the load balancer sent a client here), the usage listing. Off unless set. The
 * cdp_url and live_view_url it hands out start with OSPREY_BROWSER_PUBLIC_URL (the load balancer),
 * else this container's own address.
 */
async function startBrowserApi(
  config: Config,
  runtime: Runtime,
  logger: ReturnType<typeof createLogger>,
): Promise<{ url: string; close(): Promise<void> } | null> {
  if (config.browser.port === null) return null;
  const chromium = detectChromium(config);
  if (!chromium.path) throw new Error(`browser sessions (OSPREY_BROWSER_PORT) need Chromium: ${chromium.reason}`);
  const listening = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${config.browser.port}`;
  const { host, sessions } = buildSessions({
    config,
    db: runtime.database.db,
    services: runtime.services,
    logger,
    executablePath: chromium.path,
    prefix: "",
    // Not OSPREY_PUBLIC_URL: on a worker that names the agent surface (run live views, webhooks),
    // which the cloud serves from another host than the load balancer in front of this surface.
    publicBase: () => config.browser.publicUrl ?? config.browser.hostUrl ?? listening,
    // Sessions start from a profile where the vault key is known (the workers' rule for runs too).
    ...withProfiles(workerProfiles(config, runtime.database.db, logger)),
  });
  const app = createBrowserApp({ services: runtime.services, ids: defaultIds, logger, sessions });
  const server = serve({ fetch: app.fetch, hostname: config.host, port: config.browser.port, serverOptions: SERVER_OPTIONS });
  answerClientErrors(server as Server);
  serveCdpUpgrades(server, host);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("listening", resolve);
      server.once("error", reject);
    });
  } catch (err) {
    await host.close();
    throw new Error(`browser sessions: cannot listen on ${config.host}:${config.browser.port} (OSPREY_BROWSER_PORT)`, {
      cause: err,
    });
  }
  host.pool.start();
  return {
    url: listening,
    async close() {
      await host.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ("closeAllConnections" in server) server.closeAllConnections();
      });
    },
  };
}

const withProfiles = (profiles: ProfileStore | null) => (profiles ? { profiles } : {});
