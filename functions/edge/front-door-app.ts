import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { ConfigError } from "../config/config.ts";
import { scalerNudgeFunction } from "../config/config-scaler.ts";
import { resolveSecretEnv } from "../config/secret-env.ts";
import type { AppEnv } from "../http/app-env.ts";
import { MAX_BODY_BYTES } from "../http/compose.ts";
import { createRouter } from "../http/create-router.ts";
import { errorHandler } from "../http/error-handler.ts";
import { requireApiKey } from "../http/middleware/auth.ts";
import { requestId } from "../http/middleware/request-id.ts";
import { AppError } from "../lib/app-error.ts";
import type { IdGenerator } from "../lib/ids.ts";
import { createLogger, type Logger } from "../lib/logger.ts";
import { lambdaNudge } from "../scaler/capacity-nudge.ts";
import type { ApiKeyService } from "../services/api-key.service.ts";
import { brokenApp, type EdgeRoot, openEdgeRoot } from "./edge-root.ts";
import { createFrontDoor, type FrontDoor } from "./front-door.ts";

/**
 * The front door as an HTTP app (functions/edge/front-door.ts says what it is for): the key checked
 * the way every surface checks it (composeApp: requireApiKey, then the 1 MiB body limit), before
 * any probe or nudge, so that traffic without a valid key can neither reach the containers by this
 * way nor scale the fleet. The load balancer sends it `POST /` only; any other request that
 * arrives is forwarded the same way.
 */

/** The header whose value lets a request past the front door to the containers (the listener's first rule, infra/). */
export const BYPASS_HEADER = "x-osprey-bypass";

export interface FrontDoorSettings {
  /** OSPREY_FRONT_DOOR_ORIGIN: the load balancer's URL. */
  origin: string;
  /** OSPREY_FRONT_DOOR_SECRET: the bypass value (a generated secret, through OSPREY_SECRET_ENV). */
  bypassValue: string;
  /** OSPREY_FRONT_DOOR_WAIT_SECONDS (default 45, under CloudFront's 60 s origin timeout). */
  waitMs: number;
  /** OSPREY_FRONT_DOOR_PROBE_MS (default 2000). */
  probeEveryMs: number;
  /** OSPREY_FRONT_DOOR_HEALTH_PATH (default /healthz). */
  healthPath: string;
  /** OSPREY_SCALER_FUNCTION: the scaler to nudge. */
  scalerFunction: string;
  region: string;
}

const intSetting = (env: Record<string, string | undefined>, name: string, min: number, max: number, fallback: number) => {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new ConfigError(`invalid configuration: ${name} must be an integer between ${min} and ${max}`);
  return n;
};

/** The front door's settings; a missing or bad one throws naming the variable, never the secret's value. */
export function frontDoorSettings(env: Record<string, string | undefined>): FrontDoorSettings {
  const origin = env.OSPREY_FRONT_DOOR_ORIGIN?.trim() ?? "";
  if (!/^https?:\/\//.test(origin) || !URL.canParse(origin))
    throw new ConfigError("invalid configuration: OSPREY_FRONT_DOOR_ORIGIN must be the load balancer's http(s) URL");
  const bypassValue = env.OSPREY_FRONT_DOOR_SECRET?.trim() ?? "";
  if (bypassValue.length < 16 || !/^[\x21-\x7e]+$/.test(bypassValue))
    throw new ConfigError("invalid configuration: OSPREY_FRONT_DOOR_SECRET must be at least 16 printable characters");
  const scalerFunction = scalerNudgeFunction(env);
  if (!scalerFunction) throw new ConfigError("invalid configuration: OSPREY_SCALER_FUNCTION is required (the scaler to nudge)");
  const healthPath = env.OSPREY_FRONT_DOOR_HEALTH_PATH?.trim() || "/healthz";
  if (!healthPath.startsWith("/"))
    throw new ConfigError("invalid configuration: OSPREY_FRONT_DOOR_HEALTH_PATH must start with /");
  return {
    origin,
    bypassValue,
    waitMs: intSetting(env, "OSPREY_FRONT_DOOR_WAIT_SECONDS", 1, 600, 45) * 1000,
    probeEveryMs: intSetting(env, "OSPREY_FRONT_DOOR_PROBE_MS", 100, 30_000, 2000),
    healthPath,
    scalerFunction,
    region: env.AWS_REGION?.trim() || "us-east-1",
  };
}

export interface FrontDoorDeps {
  apiKeys: ApiKeyService;
  ids: IdGenerator;
  logger: Logger;
  door: FrontDoor;
}

/** The app: request id, the error renderer, the key, the body limit, then the door. */
export function frontDoorApp(deps: FrontDoorDeps) {
  const app = createRouter();
  app.onError(errorHandler(deps.logger));
  app.use("*", requestId(deps.ids));
  app.use(
    "*",
    requireApiKey(deps.apiKeys, () => false),
  );
  app.use(
    "*",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw new AppError("INVALID_INPUT", `The request body is larger than ${MAX_BODY_BYTES} bytes (1 MiB).`, { status: 413 });
      },
    }),
  );
  app.all("*", (c) => deps.door.serve(c.req.raw, c.get("requestId")));
  return app;
}

export interface FrontDoorEdgeOptions {
  /** Tests point the scaler's Lambda client at a local Invoke endpoint. */
  lambdaClient?: { endpoint: string; credentials: { accessKeyId: string; secretAccessKey: string } };
  fetch?: typeof fetch;
}

/**
 * The front door built on the first request from the environment (the edge root for the key check,
 * the settings above), reused by warm invocations. A bad setting answers every request 500 with the
 * cause in the log, as the surfaces do.
 */
export function frontDoorEdgeApp(env: Record<string, string | undefined>, options: FrontDoorEdgeOptions = {}) {
  let root: EdgeRoot | null = null;
  let inner: Promise<Hono<AppEnv>> | null = null;
  const ready = (): Promise<Hono<AppEnv>> => {
    inner ??= (async () => {
      const resolved = await resolveSecretEnv(env);
      const settings = frontDoorSettings(resolved);
      const r = await openEdgeRoot(resolved);
      root = r;
      const door = createFrontDoor({
        origin: settings.origin,
        bypass: { header: BYPASS_HEADER, value: settings.bypassValue },
        healthPath: settings.healthPath,
        waitMs: settings.waitMs,
        probeEveryMs: settings.probeEveryMs,
        probeTimeoutMs: Math.min(2000, settings.probeEveryMs),
        retryAfterSeconds: 5,
        logger: r.logger,
        nudge: lambdaNudge(
          settings.scalerFunction,
          settings.region,
          (err) => r.logger.warn("front door: could not nudge the scaler; its next minute catches up", { error: err }),
          options.lambdaClient,
          { trigger: "session", pending: 1 },
        ),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      });
      return frontDoorApp({ apiKeys: r.services.apiKeys, ids: r.ids, logger: r.logger, door });
    })().catch((err: unknown) => {
      const logger = createLogger("info");
      logger.error("front door cannot start", { error: err instanceof Error ? err.message : String(err) });
      return brokenApp(err, logger);
    });
    return inner;
  };
  const app = new Hono();
  app.all("*", async (c) => (await ready()).fetch(c.req.raw, c.env));
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
