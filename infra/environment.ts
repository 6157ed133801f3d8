import type { ISecret } from "aws-cdk-lib/aws-secretsmanager";
import { type OspreyDeployProps, PORTS, S3_PREFIXES, type Surface } from "./config.ts";

/**
 * The environment of every function and task, in one place: the names are the ones
 * functions/config/*.ts parses (config.ts, config-services.ts, config-storage.ts, config-browser.ts,
 * config-render.ts, config-vault.ts, config-scaler.ts, secret-env.ts). infra/ tests read the
 * synthesized template back against these.
 *
 * Secrets never appear as values: a function names them in OSPREY_SECRET_ENV and reads them on its
 * first request (functions/config/secret-env.ts); a task gets them from ECS at start (valueFrom).
 */

export interface SharedResources {
  queueUrl: string;
  deadLetterQueueUrl: string;
  bucketName: string;
  secrets: { databaseUrl: ISecret; vaultKey: ISecret; renderSecret: ISecret; llmApiKey: ISecret | null };
}

const modelEnv = (deploy: OspreyDeployProps): Record<string, string> =>
  deploy.model
    ? {
        OSPREY_LLM_PROVIDER: deploy.model.provider,
        ...(deploy.model.model ? { OSPREY_LLM_MODEL: deploy.model.model } : {}),
        ...(deploy.model.baseUrl ? { OSPREY_LLM_BASE_URL: deploy.model.baseUrl } : {}),
      }
    : {};

/**
 * How the functions reach the database. Neon: its serverless driver over a WebSocket. RDS: `pg` over
 * TCP from inside the VPC, with TLS verified against the RDS CAs. Since Node.js 20 the Lambda
 * runtime no longer loads Amazon's CA certificates by default; they are in /var/runtime/ca-cert.pem
 * and NODE_EXTRA_CA_CERTS pointing there restores them ("Building Lambda functions with Node.js",
 * https://docs.aws.amazon.com/lambda/latest/dg/lambda-nodejs.html). Node reads the variable at start,
 * so it is set here, not in code.
 */
export const LAMBDA_CA_BUNDLE = "/var/runtime/ca-cert.pem";
/** The RDS CA bundle in the container image (containers/Dockerfile downloads it at build). */
export const IMAGE_RDS_CA_BUNDLE = "/etc/ssl/certs/rds-global-bundle.pem";

const lambdaDatabaseEnv = (deploy: OspreyDeployProps): Record<string, string> =>
  deploy.database.kind === "rds"
    ? { OSPREY_DB_DRIVER: "pg", NODE_EXTRA_CA_CERTS: LAMBDA_CA_BUNDLE }
    : { OSPREY_DB_DRIVER: "neon" };

const secretEnv = (pairs: Array<[string, ISecret | null]>): string =>
  pairs
    .filter((p): p is [string, ISecret] => p[1] !== null)
    .map(([name, secret]) => `${name}=${secret.secretArn}`)
    .join(",");

/** Which secrets each function reads (and is granted). */
export function functionSecrets(surface: Surface | "scaler" | "front-door", r: SharedResources): Array<[string, ISecret | null]> {
  const s = r.secrets;
  switch (surface) {
    // The key opens vault and profile states; the model key only lets run admission see that a
    // model is configured (functions/config/model-settings.ts), the containers call the model.
    case "agent":
      return [
        ["DATABASE_URL", s.databaseUrl],
        ["OSPREY_VAULT_KEY", s.vaultKey],
        ["OSPREY_LLM_API_KEY", s.llmApiKey],
      ];
    case "fetch":
      return [
        ["DATABASE_URL", s.databaseUrl],
        ["OSPREY_RENDERER_SECRET", s.renderSecret],
      ];
    case "search":
    case "scaler":
    // The front door reads API keys only; its bypass value is its own secret (frontDoorEnvironment).
    case "front-door":
      return [["DATABASE_URL", s.databaseUrl]];
  }
}

export function functionEnvironment(
  surface: Surface,
  deploy: OspreyDeployProps,
  r: SharedResources,
  urls: { agentUrl: string | null; rendererUrl: string; scalerFunctionName: string },
): Record<string, string> {
  const common = {
    NODE_OPTIONS: "--enable-source-maps",
    OSPREY_LOG_LEVEL: deploy.logLevel,
    ...lambdaDatabaseEnv(deploy),
    OSPREY_SECRET_ENV: secretEnv(functionSecrets(surface, r)),
  };
  switch (surface) {
    case "agent":
      return {
        ...common,
        OSPREY_SQS_QUEUE_URL: r.queueUrl,
        OSPREY_SQS_DLQ_URL: r.deadLetterQueueUrl,
        OSPREY_BLOB_STORE: "s3",
        OSPREY_S3_BUCKET: r.bucketName,
        OSPREY_S3_PREFIX: S3_PREFIXES.runs,
        // Without a domain the function cannot name its own distribution (a cycle); it uses the request's origin.
        ...(urls.agentUrl ? { OSPREY_PUBLIC_URL: urls.agentUrl } : {}),
        OSPREY_SCALER_FUNCTION: urls.scalerFunctionName,
        ...modelEnv(deploy),
      };
    case "fetch":
      return {
        ...common,
        OSPREY_BLOB_STORE: "s3",
        OSPREY_S3_BUCKET: r.bucketName,
        OSPREY_S3_PREFIX: S3_PREFIXES.fetchCache,
        OSPREY_RENDERER_URL: urls.rendererUrl,
      };
    case "search":
      return common;
  }
}

export function scalerEnvironment(
  deploy: OspreyDeployProps,
  r: SharedResources,
  ecs: { clusterName: string; serviceName: string },
): Record<string, string> {
  const c = deploy.containers;
  return {
    OSPREY_LOG_LEVEL: deploy.logLevel,
    ...lambdaDatabaseEnv(deploy),
    OSPREY_SECRET_ENV: secretEnv(functionSecrets("scaler", r)),
    OSPREY_SCALER_CLUSTER: ecs.clusterName,
    OSPREY_SCALER_SERVICE: ecs.serviceName,
    OSPREY_SQS_QUEUE_URL: r.queueUrl,
    OSPREY_SCALER_WARM_FLOOR: String(c.warmFloor),
    OSPREY_SCALER_MAX_TASKS: String(c.maxTasks),
    OSPREY_WORKER_CONCURRENCY: String(c.runSlots),
    OSPREY_BROWSER_MAX_SESSIONS: String(c.sessionSlots),
  };
}

/** The front door's variables (functions/edge/front-door-app.ts frontDoorSettings). */
export function frontDoorEnvironment(
  deploy: OspreyDeployProps,
  r: SharedResources,
  door: { origin: string; bypassSecret: ISecret; scalerFunctionName: string },
): Record<string, string> {
  return {
    NODE_OPTIONS: "--enable-source-maps",
    OSPREY_LOG_LEVEL: deploy.logLevel,
    ...lambdaDatabaseEnv(deploy),
    OSPREY_SECRET_ENV: secretEnv([...functionSecrets("front-door", r), ["OSPREY_FRONT_DOOR_SECRET", door.bypassSecret]]),
    OSPREY_FRONT_DOOR_ORIGIN: door.origin,
    OSPREY_FRONT_DOOR_WAIT_SECONDS: String(deploy.frontDoor.waitSeconds),
    OSPREY_FRONT_DOOR_HEALTH_PATH: "/healthz",
    OSPREY_SCALER_FUNCTION: door.scalerFunctionName,
  };
}

/** The browser container's plain variables (the image sets OSPREY_QUEUE=sqs, OSPREY_BLOB_STORE=s3, CHROME_PATH, the data dir). */
export function containerEnvironment(
  deploy: OspreyDeployProps,
  r: SharedResources,
  urls: { agentUrl: string; browserUrl: string; region: string },
): Record<string, string> {
  const c = deploy.containers;
  return {
    AWS_REGION: urls.region,
    OSPREY_LOG_LEVEL: deploy.logLevel,
    // The load balancer reaches the browser and render ports on the task's own address.
    HOST: "0.0.0.0",
    OSPREY_QUEUE: "sqs",
    OSPREY_SQS_QUEUE_URL: r.queueUrl,
    OSPREY_SQS_DLQ_URL: r.deadLetterQueueUrl,
    OSPREY_BLOB_STORE: "s3",
    OSPREY_S3_BUCKET: r.bucketName,
    OSPREY_S3_PREFIX: S3_PREFIXES.runs,
    OSPREY_HEALTH_PORT: String(PORTS.health),
    OSPREY_BROWSER_PORT: String(PORTS.browser),
    OSPREY_RENDER_PORT: String(PORTS.render),
    OSPREY_BROWSER_PUBLIC_URL: urls.browserUrl,
    OSPREY_PUBLIC_URL: urls.agentUrl,
    OSPREY_WORKER_CONCURRENCY: String(c.runSlots),
    OSPREY_BROWSER_MAX_SESSIONS: String(c.sessionSlots),
    OSPREY_BROWSER_WARM_POOL: String(c.warmPool),
    // Below the task's stopTimeout (120 s, Fargate's maximum): the drain ends before SIGKILL would.
    OSPREY_SHUTDOWN_TIMEOUT_MS: "110000",
    OSPREY_IDLE_UNPROTECT_SECONDS: String(c.idleUnprotectSeconds),
    // RDS: DATABASE_URL is the secret's JSON (verify-full, functions/config/secret-env.ts); the RDS CAs
    // are not in Debian's store, the image carries AWS's bundle.
    ...(deploy.database.kind === "rds" ? { NODE_EXTRA_CA_CERTS: IMAGE_RDS_CA_BUNDLE } : {}),
    ...modelEnv(deploy),
  };
}

/** The container's secrets, injected by ECS at task start (the execution role reads exactly these). */
export function containerSecrets(r: SharedResources): Record<string, ISecret> {
  const s = r.secrets;
  return {
    DATABASE_URL: s.databaseUrl,
    OSPREY_VAULT_KEY: s.vaultKey,
    OSPREY_RENDERER_SECRET: s.renderSecret,
    ...(s.llmApiKey ? { OSPREY_LLM_API_KEY: s.llmApiKey } : {}),
  };
}
