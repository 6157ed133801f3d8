import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from "@aws-sdk/client-sqs";
import { startFauxqs } from "fauxqs";
import pg from "pg";
import { processEnvironment } from "../../functions/config/config.ts";
import { type CloudDevSettings, parseCloudDevSettings } from "../../functions/config/config-cloud-dev.ts";
import { openDatabase } from "../../functions/db/open-database.ts";
import { sqsRedrivePolicy } from "../../functions/queue/sqs-queue.ts";
import { MAX_RECEIVES } from "../local/run-stack.ts";
import { type BrowserBalancer, startBrowserBalancer } from "./browser-balancer.ts";
import { type FunctionUrl, installStreamingRuntime, type StreamingHandler, serveFunctionUrl } from "./function-url-adapter.ts";
import { startNeonWsProxy } from "./neon-ws-proxy.ts";

/**
 * `npm run dev:cloud`: the cloud shape (README, "Cloud mode") on one machine.
 *
 * - the edge: the agent, fetch and search surfaces' Lambda handlers (functions/entry/*.lambda.ts,
 *   or the bundles in dist/functions with --bundles) behind local function URLs
 *   (function-url-adapter.ts: payload 2.0 events, response streaming through the runtime's
 *   `awslambda` global);
 * - the browser surface, which is no Lambda (websockets do not fit one): the workers' own browser
 *   session APIs (OSPREY_BROWSER_PORT) behind a local TCP load balancer (browser-balancer.ts), the
 *   cdp_url and live_view_url they hand out pointing at it (OSPREY_BROWSER_PUBLIC_URL);
 * - SQS (run queue + dead-letter queue) and S3 (artifacts) on the fauxqs emulator, in this process;
 * - Postgres through the Neon serverless driver and a local WebSocket proxy (neon-ws-proxy.ts),
 *   with migrations applied once before anything starts;
 * - browser containers: `osprey worker` child processes (SQS consumer, Chromium, webhooks, the
 *   internal render endpoint the edge's fetch uses, browser sessions with a warm pool of one
 *   Chromium each unless OSPREY_BROWSER_WARM_POOL says otherwise), each in its own process group;
 *   one that dies is started again on the same ports, as an ECS service replaces a stopped task.
 *
 * DATABASE_URL names the database (default: a database `osprey_cloud_dev` it creates on the local
 * Postgres the README names). OSPREY_CLOUD_DEV_PORT is the first of four ports, one per surface
 * (default 8790; 0 picks free ports), OSPREY_CLOUD_DEV_WORKERS the number of workers (default 2).
 * OSPREY_PUBLIC_URL (default: the agent URL) and OSPREY_BROWSER_PUBLIC_URL (default: the balancer)
 * are where clients are told to reach them, for a tunnel or a proxy in front.
 * Everything else (OSPREY_LLM_*, OSPREY_ALLOW_PRIVATE_HOSTS, ...) is passed to the edge and the
 * workers as they are. SIGINT/SIGTERM stop the workers (they drain), then everything else.
 */

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const CLI = path.join(REPO_ROOT, "containers/cli/osprey.ts");
/** The surfaces that are Lambda functions; {browser_url} is the balancer, on the port after them. */
const FUNCTION_SURFACES = ["agent", "fetch", "search"] as const;
const DEFAULT_SERVER = "postgres://postgres@127.0.0.1:5432/postgres";
const DEV_DATABASE = "osprey_cloud_dev";
const BUCKET = "osprey-artifacts";
/** How long stopped workers get to drain before they are killed. */
const STOP_GRACE_MS = 15_000;
/** A worker that dies is started again after this long. */
const RESTART_DELAY_MS = 1_000;
/** Each warm Chromium costs memory, times the number of workers; OSPREY_BROWSER_WARM_POOL overrides it. */
const WARM_POOL = "1";

type Env = Record<string, string | undefined>;

const print = (line: string) => process.stdout.write(`${line}\n`);

const redacted = (url: string) => {
  const u = new URL(url);
  if (u.password) u.password = "***";
  return u.toString();
};
const isLoopback = (url: string) => ["127.0.0.1", "localhost", "[::1]"].includes(new URL(url).hostname);

/** DATABASE_URL, or the dedicated database on the local Postgres, created when missing. */
async function databaseUrl(settings: CloudDevSettings): Promise<string> {
  if (settings.databaseUrl) return settings.databaseUrl;
  const admin = new pg.Client({ connectionString: DEFAULT_SERVER });
  await admin.connect().catch((err: unknown) => {
    throw new Error(`no DATABASE_URL, and the local Postgres at ${DEFAULT_SERVER} does not answer`, { cause: err });
  });
  try {
    const found = await admin.query("select 1 from pg_database where datname = $1", [DEV_DATABASE]);
    if (found.rowCount === 0) await admin.query(`create database ${DEV_DATABASE}`);
  } finally {
    await admin.end();
  }
  const url = new URL(DEFAULT_SERVER);
  url.pathname = `/${DEV_DATABASE}`;
  return url.toString();
}

/**
 * A free port, held by a listening socket until it is released just before its real listener
 * binds it: a port probed and closed at once was sometimes taken by another process (a browser, a
 * test's server) in the seconds before dev:cloud bound it (EADDRINUSE).
 */
interface ReservedPort {
  port: number;
  release(): Promise<void>;
}

async function reservePort(): Promise<ReservedPort> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  let released: Promise<void> | null = null;
  return {
    port,
    release: () => {
      released ??= new Promise<void>((resolve) => server.close(() => resolve()));
      return released;
    },
  };
}

interface WorkerPorts {
  health: number;
  render: number;
  browser: number;
}

interface Worker {
  name: string;
  child: ChildProcess;
  health: string;
  render: string;
  browser: string;
}

const describeWorker = (w: Worker) => `pid ${w.child.pid} health ${w.health} render ${w.render} browser ${w.browser}`;

async function main(argv: string[]): Promise<void> {
  // Handed on whole to the functions and workers (their config.ts parses it); our own settings parsed here.
  const env: Env = processEnvironment();
  const settings = parseCloudDevSettings(env);
  const useBundles = argv.includes("--bundles");
  const basePort = settings.basePort;
  const workerCount = settings.workers;
  const cleanups: (() => Promise<void> | void)[] = [];
  let stopping = false;

  const dbUrl = await databaseUrl(settings);
  // Migrations once, before any function or worker starts (each worker would otherwise race to apply them).
  const migrator = await openDatabase({ driver: "pg", url: dbUrl });
  try {
    await migrator.migrate();
  } finally {
    await migrator.close();
  }

  const fauxqs = await startFauxqs({ port: 0, logger: false });
  cleanups.push(() => fauxqs.stop());
  const credentials = { accessKeyId: "test", secretAccessKey: "test" };
  const sqs = new SQSClient({ endpoint: fauxqs.address, region: "us-east-1", credentials });
  const dlq = await sqs.send(new CreateQueueCommand({ QueueName: "osprey-runs-dlq" }));
  const dlqAttrs = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ["QueueArn"] }));
  const queue = await sqs.send(
    new CreateQueueCommand({
      QueueName: "osprey-runs",
      Attributes: { RedrivePolicy: sqsRedrivePolicy(dlqAttrs.Attributes?.QueueArn ?? "", MAX_RECEIVES) },
    }),
  );
  sqs.destroy();
  fauxqs.createBucket(BUCKET);

  const proxy = isLoopback(dbUrl) ? await startNeonWsProxy() : null;
  if (proxy) cleanups.push(() => proxy.close());

  const reserve = async () => {
    const r = await reservePort();
    cleanups.push(() => r.release());
    return r;
  };
  const surfacePorts: number[] = [];
  const surfaceReservations: (ReservedPort | null)[] = [];
  for (const [i] of FUNCTION_SURFACES.entries()) {
    const r = basePort === 0 ? await reserve() : null;
    surfaceReservations.push(r);
    surfacePorts.push(r ? r.port : basePort + i);
  }
  // The load balancer first: the workers hand out its URL, and a taken port stops start-up before they start.
  const workerPorts: WorkerPorts[] = [];
  const workerReservations: ReservedPort[][] = [];
  for (let i = 0; i < workerCount; i++) {
    const [health, render, browser] = [await reserve(), await reserve(), await reserve()];
    workerReservations.push([health, render, browser]);
    workerPorts.push({ health: health.port, render: render.port, browser: browser.port });
  }
  const balancerPort = basePort === 0 ? 0 : basePort + FUNCTION_SURFACES.length;
  const balancer: BrowserBalancer = await startBrowserBalancer({
    host: "127.0.0.1",
    port: balancerPort,
    targets: () => workerPorts.map((p) => ({ host: "127.0.0.1", port: p.browser })),
  }).catch((err: unknown) => {
    throw new Error(`browser load balancer: cannot listen on 127.0.0.1:${balancerPort}`, { cause: err });
  });
  cleanups.push(() => balancer.close());
  const renderSecret = randomBytes(32).toString("hex");
  const dataRoot = mkdtempSync(path.join(tmpdir(), "osprey-cloud-dev-"));
  cleanups.push(() => rmSync(dataRoot, { recursive: true, force: true }));
  const shared: Record<string, string> = {
    OSPREY_SQS_QUEUE_URL: queue.QueueUrl ?? "",
    OSPREY_SQS_DLQ_URL: dlq.QueueUrl ?? "",
    OSPREY_SQS_ENDPOINT: fauxqs.address,
    OSPREY_BLOB_STORE: "s3",
    OSPREY_S3_BUCKET: BUCKET,
    OSPREY_S3_ENDPOINT: fauxqs.address,
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: settings.awsAccessKeyId,
    AWS_SECRET_ACCESS_KEY: settings.awsSecretAccessKey,
    OSPREY_RENDERER_SECRET: renderSecret,
    // Live-view and webhook links point at the agent function, as a deployment's CloudFront name would.
    OSPREY_PUBLIC_URL: settings.publicUrl ?? `http://127.0.0.1:${surfacePorts[0]}`,
  };

  // Browser containers: `osprey worker`, as containers/Dockerfile runs it.
  const workers: Worker[] = [];
  const startWorker = async (i: number, ports: WorkerPorts): Promise<Worker> => {
    const name = `worker-${i + 1}`;
    const child = spawn(
      process.execPath,
      ["--experimental-strip-types", "--disable-warning=ExperimentalWarning", CLI, "worker"],
      {
        cwd: REPO_ROOT,
        env: {
          OSPREY_BROWSER_WARM_POOL: WARM_POOL,
          ...env,
          ...shared,
          DATABASE_URL: dbUrl,
          OSPREY_DB_DRIVER: "pg",
          OSPREY_QUEUE: "sqs",
          OSPREY_HEALTH_PORT: String(ports.health),
          OSPREY_RENDER_PORT: String(ports.render),
          // Its browser session API, a target of the load balancer; other workers reach it at its host URL.
          OSPREY_BROWSER_PORT: String(ports.browser),
          OSPREY_BROWSER_HOST_URL: `http://127.0.0.1:${ports.browser}`,
          OSPREY_BROWSER_PUBLIC_URL: settings.browserPublicUrl ?? balancer.url,
          OSPREY_DATA_DIR: path.join(dataRoot, name),
          HOST: "127.0.0.1",
        },
        // Its own process group: Ctrl-C reaches this process only, which stops each worker once.
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const worker: Worker = {
      name,
      child,
      health: `http://127.0.0.1:${ports.health}/healthz`,
      render: `http://127.0.0.1:${ports.render}/internal/render`,
      browser: `http://127.0.0.1:${ports.browser}`,
    };
    const prefix = (stream: NodeJS.WritableStream) => (chunk: string) => {
      for (const line of chunk.split("\n")) if (line) stream.write(`[${name}] ${line}\n`);
    };
    let started = false;
    const ready = new Promise<void>((resolve, reject) => {
      child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
        if (!started && /Osprey worker \S+ started/.test(chunk)) {
          started = true;
          resolve();
        }
        prefix(process.stdout)(chunk);
      });
      child.once("exit", (code, signal) => reject(new Error(`${name} exited before it started (${signal ?? code})`)));
    });
    child.stderr?.setEncoding("utf8").on("data", prefix(process.stderr));
    child.once("exit", (code, signal) => {
      if (stopping || !started) return;
      print(`[${name}] exited (${signal ?? `code ${code}`}); starting it again in ${RESTART_DELAY_MS} ms`);
      setTimeout(() => {
        if (stopping) return;
        startWorker(i, ports).then(
          (w) => {
            workers[i] = w;
            print(`[${name}] ${describeWorker(w)}`);
          },
          (err: unknown) => print(`[${name}] did not start again: ${err instanceof Error ? err.message : String(err)}`),
        );
      }, RESTART_DELAY_MS);
    });
    workers[i] = worker;
    await ready;
    return worker;
  };

  const stopWorkers = async () => {
    await Promise.all(
      workers.map(async (w) => {
        if (w.child.exitCode !== null || w.child.signalCode !== null) return;
        const exited = new Promise((resolve) => w.child.once("exit", resolve));
        w.child.kill("SIGTERM");
        const timer = setTimeout(() => w.child.kill("SIGKILL"), STOP_GRACE_MS);
        await exited;
        clearTimeout(timer);
      }),
    );
  };

  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    print(`dev:cloud: ${signal}: stopping the workers, then the functions, the balancer, fauxqs and the proxy`);
    await stopWorkers();
    for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => {});
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));

  try {
    // Each worker's ports are let go just before it starts and binds them.
    await Promise.all(
      workerPorts.map(async (ports, i) => {
        await Promise.all((workerReservations[i] ?? []).map((r) => r.release()));
        return startWorker(i, ports);
      }),
    );

    // The edge: one function URL per surface. The handlers read this environment on their first request.
    Object.assign(env, shared, {
      DATABASE_URL: dbUrl,
      OSPREY_DB_DRIVER: "neon",
      OSPREY_NEON_WS_PROXY: proxy?.url ?? "",
      // An internal load balancer in front of the containers' render endpoints, in AWS; the first worker here.
      OSPREY_RENDERER_URL: workers[0]?.render ?? "",
    });
    installStreamingRuntime();
    const urls: Record<string, FunctionUrl> = {};
    for (const [i, surface] of FUNCTION_SURFACES.entries()) {
      const module = useBundles
        ? path.join(REPO_ROOT, "dist/functions", `${surface}.mjs`)
        : path.join(REPO_ROOT, "functions/entry", `${surface}.lambda.ts`);
      const { handler } = (await import(pathToFileURL(module).href).catch((err: unknown) => {
        throw new Error(`cannot load ${path.relative(REPO_ROOT, module)}${useBundles ? " (run npm run build first)" : ""}`, {
          cause: err,
        });
      })) as { handler: StreamingHandler };
      await surfaceReservations[i]?.release();
      urls[surface] = await serveFunctionUrl(`osprey-${surface}`, handler, {
        host: "127.0.0.1",
        port: surfacePorts[i] ?? 0,
        onError: (err) => print(`[${surface}] invocation failed: ${err instanceof Error ? err.message : String(err)}`),
      });
      cleanups.push(() => urls[surface]?.close());
    }

    print("Osprey dev:cloud: the cloud shape on this machine");
    for (const surface of FUNCTION_SURFACES) {
      print(`  ${`${surface}_url`.padEnd(12)} ${urls[surface]?.url}  (Lambda function URL, response streaming)`);
    }
    print(
      `  ${"browser_url".padEnd(12)} ${balancer.url}  (load balancer over the workers' browser ports; HTTP and CDP websockets)`,
    );
    print(`  ${"sqs".padEnd(12)} ${shared.OSPREY_SQS_QUEUE_URL}  (dead letters: ${shared.OSPREY_SQS_DLQ_URL}; fauxqs)`);
    print(`  ${"s3".padEnd(12)} s3://${BUCKET} at ${fauxqs.address}  (fauxqs)`);
    print(`  ${"database".padEnd(12)} ${redacted(dbUrl)}  (Neon driver${proxy ? ` via the WebSocket proxy ${proxy.url}` : ""})`);
    for (const w of workers) print(`  ${w.name.padEnd(12)} ${describeWorker(w)}`);
    print(`Create an API key: DATABASE_URL=${redacted(dbUrl)} npx osprey keys create --json`);
    print("dev:cloud ready (Ctrl-C stops everything)");
  } catch (err) {
    stopping = true;
    await stopWorkers();
    for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => {});
    throw err;
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`dev:cloud: ${err instanceof Error ? err.message : String(err)}\n`);
  if (err instanceof Error && err.cause) process.stderr.write(`  cause: ${String(err.cause)}\n`);
  process.exit(1);
});
