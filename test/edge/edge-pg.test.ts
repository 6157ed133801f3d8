import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { streamHandle } from "hono/aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../functions/db/open-database.ts";
import { buildAgentSurface } from "../../functions/edge/agent-surface.ts";
import { type EdgeApp, type EdgeSurfaceBuilder, edgeApp } from "../../functions/edge/edge-root.ts";
import { buildSearchSurface } from "../../functions/edge/search-surface.ts";
import { systemClock } from "../../functions/lib/clock.ts";
import { defaultIds } from "../../functions/lib/ids.ts";
import { openScaler, triggerOf } from "../../functions/scaler/scaler-root.ts";
import { ensureFirstAccount } from "../../functions/services/bootstrap.service.ts";
import { createServices } from "../../functions/services/index.ts";
import { createPostgresDatabase, TEST_DATABASE_URL } from "../helpers/databases.ts";
import { type EcsDouble, startEcsDouble } from "../helpers/ecs-double.ts";
import { setEnv } from "../helpers/env.ts";
import { type Fauxqs, startFauxqsServer } from "../helpers/fauxqs.ts";
import { functionUrlEvent, installLambdaRuntime, invoke } from "../helpers/lambda.ts";

/**
 * The edge over `pg` (TCP), as an RDS deployment runs it (infra `-c database=rds`): OSPREY_DB_DRIVER=pg
 * through the edge root to the real Postgres, and DATABASE_URL read from a secret that holds RDS's
 * JSON, through the AWS SDK against a local Secrets Manager endpoint (GetSecretValue over HTTP).
 */

if (!TEST_DATABASE_URL) {
  describe("edge over pg", () => {
    it.skip("needs TEST_DATABASE_URL (a real Postgres reached over TCP)", () => {});
  });
}

const ARN = "arn:aws:secretsmanager:us-east-1:123456789012:secret:osprey/database-AbCdEf";

/** Secrets Manager's JSON protocol, GetSecretValue only: the SDK's real client talks to it. */
async function startSecretsManager(secrets: Map<string, string>): Promise<{ url: string; reads: string[]; server: Server }> {
  const reads: string[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      const target = String(req.headers["x-amz-target"] ?? "");
      const id = (JSON.parse(body || "{}") as { SecretId?: string }).SecretId ?? "";
      reads.push(id);
      const value = secrets.get(id);
      res.setHeader("content-type", "application/x-amz-json-1.1");
      if (target !== "secretsmanager.GetSecretValue" || value === undefined) {
        res.statusCode = 400;
        res.end(
          JSON.stringify({ __type: "ResourceNotFoundException", message: "Secrets Manager can't find the specified secret." }),
        );
        return;
      }
      res.end(JSON.stringify({ ARN: id, Name: "osprey/database", SecretString: value, VersionId: "v1" }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, reads, server };
}

describe.skipIf(!TEST_DATABASE_URL)("edge over pg (OSPREY_DB_DRIVER=pg, RDS's secret JSON)", () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let sm: Awaited<ReturnType<typeof startSecretsManager>>;
  const secrets = new Map<string, string>();
  let key: string;
  const apps: EdgeApp[] = [];
  const handlerFor = (build: EdgeSurfaceBuilder, env: Record<string, string>) => {
    const edge = edgeApp({ OSPREY_LOG_LEVEL: "error", ...env }, build);
    apps.push(edge);
    return streamHandle(edge.app);
  };
  const get = (path: string, withKey = true) => functionUrlEvent("GET", path, { headers: withKey ? { "x-api-key": key } : {} });
  /** RDS's secret for the test database, as RDS writes it (no sslmode) unless `extra` adds one. */
  const rdsSecret = (extra: Record<string, unknown> = {}) => {
    const u = new URL(database.url);
    return JSON.stringify({
      engine: "postgres",
      username: decodeURIComponent(u.username),
      password: decodeURIComponent(u.password) || "unused-by-trust-auth",
      host: u.hostname,
      port: Number(u.port || 5432),
      dbname: u.pathname.slice(1),
      dbInstanceIdentifier: "osprey-db",
      ...extra,
    });
  };

  let restoreEnv: (() => void) | undefined;

  beforeAll(async () => {
    installLambdaRuntime();
    const restoreKeys = setEnv({ AWS_ACCESS_KEY_ID: "test", AWS_SECRET_ACCESS_KEY: "test" });
    restoreEnv = restoreKeys;
    database = await createPostgresDatabase({ fromTemplate: true });
    sm = await startSecretsManager(secrets);
    // The SDK's service-specific endpoint setting: the function's real client, pointed here.
    const restoreEndpoint = setEnv({ AWS_ENDPOINT_URL_SECRETS_MANAGER: sm.url });
    restoreEnv = () => {
      restoreEndpoint();
      restoreKeys();
    };
    const setup = await openDatabase({ driver: "pg", url: database.url });
    try {
      key = (await ensureFirstAccount(createServices({ db: setup.db, clock: systemClock, ids: defaultIds })))?.key ?? "";
    } finally {
      await setup.close();
    }
  });
  afterAll(async () => {
    for (const a of apps) await a.close();
    restoreEnv?.();
    await new Promise((r) => sm?.server.close(r));
    await database?.drop();
  });

  it("answers authenticated requests on the agent and search surfaces over pg", async () => {
    const agent = handlerFor(buildAgentSurface, { DATABASE_URL: database.url, OSPREY_DB_DRIVER: "pg" });
    const res = await invoke(agent, get("/v1/account"));
    expect(res.status).toBe(200);
    expect(res.json()).toHaveProperty("plan");
    expect((await invoke(agent, get("/v1/account", false))).status).toBe(401);
    const search = handlerFor(buildSearchSurface, { DATABASE_URL: database.url, OSPREY_DB_DRIVER: "pg" });
    expect((await invoke(search, get("/usage"))).status).toBe(200);
  });

  it("takes DATABASE_URL from a secret holding RDS's JSON, read once per instance", async () => {
    secrets.set(ARN, rdsSecret({ sslmode: "disable" }));
    const before = sm.reads.length;
    const agent = handlerFor(buildAgentSurface, {
      OSPREY_SECRET_ENV: `DATABASE_URL=${ARN}`,
      OSPREY_DB_DRIVER: "pg",
      AWS_REGION: "us-east-1",
    });
    expect((await invoke(agent, get("/v1/account"))).status).toBe(200);
    expect((await invoke(agent, get("/v1/account"))).status).toBe(200);
    expect(sm.reads.slice(before)).toEqual([ARN]);
  });

  it("verifies TLS by default: RDS's JSON (no sslmode) never falls back to plain text", async () => {
    // This Postgres has no TLS: a verify-full URL must fail to connect rather than downgrade.
    secrets.set(ARN, rdsSecret());
    const agent = handlerFor(buildAgentSurface, {
      OSPREY_SECRET_ENV: `DATABASE_URL=${ARN}`,
      OSPREY_DB_DRIVER: "pg",
      AWS_REGION: "us-east-1",
    });
    const res = await invoke(agent, get("/v1/account"));
    expect(res.status).toBe(500);
    expect(res.json()).toMatchObject({ error: { code: "INTERNAL_ERROR" } });
  });

  it("a malformed secret answers 500 naming nothing secret, and the function keeps answering /healthz", async () => {
    const password = "pa55-w0rd-that-must-never-show";
    secrets.set(ARN, `{"username":"osprey","password":"${password}","host":`);
    const agent = handlerFor(buildAgentSurface, {
      OSPREY_SECRET_ENV: `DATABASE_URL=${ARN}`,
      OSPREY_DB_DRIVER: "pg",
      AWS_REGION: "us-east-1",
    });
    const res = await invoke(agent, get("/v1/account"));
    expect(res.status).toBe(500);
    expect(res.body).not.toContain(password);
    expect(res.body).not.toContain("osprey/database");
  });

  it("the scaler function counts open sessions over pg from RDS's JSON secret (ECS double, fauxqs)", async () => {
    secrets.set(ARN, rdsSecret({ sslmode: "disable" }));
    let sqs: Fauxqs | null = null;
    let ecs: EcsDouble | null = null;
    try {
      sqs = await startFauxqsServer();
      ecs = await startEcsDouble({ cluster: "osprey", service: "osprey-browser" });
      const q = await sqs.createQueue();
      const root = await openScaler(
        {
          OSPREY_SCALER_CLUSTER: "osprey",
          OSPREY_SCALER_SERVICE: "osprey-browser",
          OSPREY_SQS_QUEUE_URL: q.queueUrl,
          OSPREY_SECRET_ENV: `DATABASE_URL=${ARN}`,
          OSPREY_DB_DRIVER: "pg",
          AWS_REGION: "us-east-1",
        },
        {
          endpoints: { ecs: ecs.endpoint, sqs: sqs.server.address },
          credentials: { accessKeyId: "test", secretAccessKey: "test" },
          emit: () => {},
        },
      );
      try {
        expect(root.config.dbDriver).toBe("pg");
        const pass = await root.scaler.pass(triggerOf({ source: "aws.events" }));
        // null would mean the database was not asked (or could not be): 0 is the real count.
        expect(pass.demand.openSessions).toBe(0);
      } finally {
        await root.close();
      }
    } finally {
      await ecs?.close();
      await sqs?.stop();
    }
  });

  it("refuses PGlite on the edge", async () => {
    const agent = handlerFor(buildAgentSurface, { OSPREY_DB_DRIVER: "pglite" });
    const res = await invoke(agent, get("/v1/account"));
    expect(res.status).toBe(500);
  });
});
