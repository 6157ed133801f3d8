import { tmpdir } from "node:os";
import path from "node:path";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { Hono } from "hono";
import { streamHandle } from "hono/aws-lambda";
import { type Config, ConfigError, parseConfig, processEnvironment } from "../config/config.ts";
import { type RemoteRendererConfig, remoteRendererConfig } from "../config/config-render.ts";
import { scalerNudgeFunction } from "../config/config-scaler.ts";
import { resolveSecretEnv } from "../config/secret-env.ts";
import type { Database } from "../db/db.ts";
import { openDatabase } from "../db/open-database.ts";
import { createRemoteRenderer } from "../fetch/remote-renderer.ts";
import { type Renderer, unavailableRenderer } from "../fetch/renderer.ts";
import type { AppEnv } from "../http/app-env.ts";
import { composeApp, type Surface } from "../http/compose.ts";
import { createRouter } from "../http/create-router.ts";
import { errorHandler } from "../http/error-handler.ts";
import { requestId } from "../http/middleware/request-id.ts";
import { systemClock } from "../lib/clock.ts";
import { defaultIds, type IdGenerator } from "../lib/ids.ts";
import { createLogger, type Logger } from "../lib/logger.ts";
import type { Resolver } from "../net/address-policy.ts";
import { type CapacityNudge, lambdaNudge } from "../scaler/capacity-nudge.ts";
import { createServices, type Services } from "../services/index.ts";
import { type BlobStore, fileBlobStore } from "../storage/blob-store.ts";
import { openBlobStore } from "../storage/open-blob-store.ts";
import { VERSION } from "../version.ts";

/**
 * The edge composition root (ARCHITECTURE.md, cloud column): one Hono app per Lambda, over the Neon
 * serverless driver (or, for RDS, `pg` over TCP: OSPREY_DB_DRIVER=pg), the SQS producer, S3
 * artifacts and the remote renderer; never PGlite, Chromium or anything under containers/
 * (functions/build/build-edge.ts checks the bundles).
 *
 * Each Lambda entry (functions/entry/*.lambda.ts) names its surface and builds it from this root, so
 * a bundle carries only its own surface. Nothing happens at import: the configuration is parsed and
 * the dependencies built on the first request, then reused by every warm invocation. Building them
 * opens no connection (the pool connects on its first query), so /healthz, /openapi.json and a 401
 * for a missing key answer at once with only DATABASE_URL set; a setting that one route needs (the
 * queue for runs, the render service for fetch) fails that route alone.
 */

/** Connections one Lambda instance keeps. It serves one request at a time; fetch runs its URLs in parallel. */
const POOL_MAX = 5;
/** Idle connections close after this long, so an instance that stops getting requests stops holding them. */
const POOL_IDLE_MS = 30_000;
/** A TCP connection (`pg`) that is not up by then will not come: a security group or route is wrong. */
const CONNECT_TIMEOUT_MS = 10_000;

export interface EdgeRoot {
  config: Config;
  logger: Logger;
  ids: IdGenerator;
  database: Database;
  services: Services;
  /** The artifact store, built on first use (S3 when OSPREY_BLOB_STORE=s3). */
  blobs(): BlobStore;
  renderer: Renderer;
  /**
   * Invokes the browser containers' scaler after a run is enqueued (OSPREY_SCALER_FUNCTION; the fast
   * path of functions/scaler); null when unset. The agent surface wraps its queue with
   * withCapacityNudge(queue, root.capacityNudge).
   */
  capacityNudge: CapacityNudge | null;
  /** The origin of the request being served, for URLs in responses when OSPREY_PUBLIC_URL is unset. */
  publicUrl(): string;
  /** Called per request by edgeApp (an instance serves one request at a time). */
  setRequestOrigin(origin: string): void;
  close(): Promise<void>;
}

export interface EdgeOptions {
  /** Tests resolve names to loopback through this; production uses the system resolver. */
  resolver?: Resolver;
}

export type EdgeSurfaceBuilder = (root: EdgeRoot, options: EdgeOptions) => Surface;

/**
 * The edge's configuration: the shared one, with the Neon driver as the default database driver
 * (`pg` when OSPREY_DB_DRIVER=pg: RDS, reached over TCP from inside the VPC; PGlite is refused, a
 * Lambda's disk is neither shared nor kept) and the queue taken as SQS exactly when
 * OSPREY_SQS_QUEUE_URL is set (the edge never polls a Postgres queue; without a URL, starting a
 * run is refused with a clear error).
 */
export function parseEdgeConfig(env: Record<string, string | undefined>): { config: Config; renderer: RemoteRendererConfig } {
  const config = parseConfig({
    ...env,
    OSPREY_DB_DRIVER: env.OSPREY_DB_DRIVER || "neon",
    OSPREY_QUEUE: env.OSPREY_SQS_QUEUE_URL ? "sqs" : "postgres",
  });
  if (config.database.driver === "pglite")
    throw new ConfigError("invalid configuration: OSPREY_DB_DRIVER must be neon or pg on the edge (got pglite)");
  return { config, renderer: remoteRendererConfig(env) };
}

export async function openEdgeRoot(env: Record<string, string | undefined>): Promise<EdgeRoot> {
  // The deployment names its secrets in OSPREY_SECRET_ENV (infra/); they are read once, here.
  const { config, renderer: rendererConfig } = parseEdgeConfig(await resolveSecretEnv(env));
  const logger = createLogger(config.logLevel);
  const scaler = scalerNudgeFunction(env);
  const database = await openDatabase(config.database, {
    max: POOL_MAX,
    idleTimeoutMs: POOL_IDLE_MS,
    connectTimeoutMs: CONNECT_TIMEOUT_MS,
  });
  const services = createServices({ db: database.db, clock: systemClock, ids: defaultIds });
  let blobs: BlobStore | null = null;
  let origin = "http://localhost";
  return {
    config,
    logger,
    ids: defaultIds,
    database,
    services,
    blobs() {
      // A Lambda's disk is its own and short-lived: without S3, artifacts live in /tmp of one
      // instance only (fine for trying it out, not for a deployment; infra/ sets S3).
      blobs ??=
        config.blobStore.kind === "s3" ? openBlobStore(config.blobStore) : fileBlobStore(path.join(tmpdir(), "osprey-blobs"));
      return blobs;
    },
    renderer: rendererConfig.ok
      ? createRemoteRenderer({ url: rendererConfig.url, secret: rendererConfig.secret })
      : unavailableRenderer(rendererConfig.reason),
    capacityNudge: scaler
      ? lambdaNudge(scaler, env.AWS_REGION || "us-east-1", (err) =>
          logger.warn("could not nudge the scaler; its next minute catches up", { error: err }),
        )
      : null,
    publicUrl: () => config.publicUrl ?? origin,
    setRequestOrigin(o) {
      origin = o;
    },
    close: () => database.close(),
  };
}

/** The app that answers when the root cannot be built (a bad setting): a 500 with the spec body; the cause is logged. */
export function brokenApp(err: unknown, logger: Logger): OpenAPIHono<AppEnv> {
  const app = createRouter();
  app.onError(errorHandler(logger));
  app.use("*", requestId(defaultIds));
  app.all("*", () => {
    throw err;
  });
  return app;
}

export interface EdgeApp {
  /** The Hono app to hand to `streamHandle` (or to call directly in tests). */
  app: Hono;
  /** Closes the root's connections, when one was built. */
  close(): Promise<void>;
}

/**
 * One surface at its host root, built on the first request and reused after. The configuration is
 * read from `env` then, not at import: a Lambda whose settings are wrong still starts and answers
 * every request with a 500 whose cause is in its log.
 */
export function edgeApp(env: Record<string, string | undefined>, build: EdgeSurfaceBuilder, options: EdgeOptions = {}): EdgeApp {
  let root: EdgeRoot | null = null;
  let inner: Promise<Hono<AppEnv>> | null = null;
  const ready = (): Promise<Hono<AppEnv>> => {
    inner ??= openEdgeRoot(env).then(
      (r) => {
        root = r;
        const surface = build(r, options);
        return composeApp({ ids: r.ids, logger: r.logger, apiKeys: r.services.apiKeys, version: VERSION }, [
          { ...surface, prefix: "" },
        ]);
      },
      (err) => {
        const logger = createLogger("info");
        logger.error("edge function cannot start", { error: err instanceof Error ? err.message : String(err) });
        return brokenApp(err, logger);
      },
    );
    return inner;
  };
  const app = new Hono();
  app.all("*", async (c) => {
    const served = await ready();
    root?.setRequestOrigin(new URL(c.req.url).origin);
    return served.fetch(c.req.raw, c.env);
  });
  return {
    app,
    async close() {
      const r = root as EdgeRoot | null;
      root = null;
      inner = null;
      await r?.close();
    },
  };
}

/**
 * The Lambda handler of one surface, for a function URL with response streaming (RESPONSE_STREAM
 * invoke mode): long responses (a blocking run, SSE, a 120 s fetch batch) stream past API Gateway's
 * 29 s cap, up to the invocation's 15 minutes. The environment is handed over here and read on the
 * first request.
 */
export function lambdaHandler(build: EdgeSurfaceBuilder): ReturnType<typeof streamHandle> {
  return streamHandle(edgeApp(processEnvironment(), build).app);
}
