import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isExecutable } from "../../containers/browser/chromium-process.ts";
import { parseConfig } from "../../functions/config/config.ts";
import type { Database } from "../../functions/db/db.ts";
import { openDatabase } from "../../functions/db/open-database.ts";
import { createSqsQueue } from "../../functions/queue/sqs-queue.ts";
import type { RunRow } from "../../functions/runs/run.repo.ts";
import { s3BlobStore } from "../../functions/storage/s3-blob-store.ts";
import { sequence } from "../agent/loop/harness.ts";
import { createTestContext, type TestContext } from "../helpers/app.ts";
import { createPostgresDatabase, TEST_DATABASE_URL } from "../helpers/databases.ts";
import { type Fauxqs, type FauxqsQueue, startFauxqsServer } from "../helpers/fauxqs.ts";
import { type AgentFixtureSite, startFixtureSite } from "../helpers/fixture-site.ts";
import { childEnv, freeListenPort, REPO_ROOT, tempDir } from "../helpers/process.ts";
import { type Json, loginSteps } from "../helpers/run-harness.ts";
import { type ScriptedModel, startScriptedModel } from "../helpers/scripted-model.ts";

/**
 * containers/Dockerfile, kept honest without Docker: the final stage's ENV, ENTRYPOINT + CMD and
 * HEALTHCHECK are read from the file and run as written, from the repository root (the image's
 * WORKDIR holds the same tree), against Postgres and the fauxqs emulator for SQS and S3. The only
 * variables added are the ones a deployment supplies (database, queue and bucket addresses, the
 * model) and the ones this machine needs (a free health port, a temporary data directory).
 */

const DOCKERFILE = path.join(REPO_ROOT, "containers/Dockerfile");

interface Instruction {
  op: string;
  args: string;
}
interface Stage {
  from: string;
  instructions: Instruction[];
}

/** Instructions per stage: comments dropped, `\` continuations joined, as Docker's parser reads them. */
function parseDockerfile(text: string): { args: Record<string, string>; stages: Stage[] } {
  const lines: string[] = [];
  let pending = "";
  for (const raw of text.split("\n")) {
    if (/^\s*#/.test(raw)) continue;
    const line = raw.trimEnd();
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const joined = (pending + line).trim();
    pending = "";
    if (joined) lines.push(joined);
  }
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const line of lines) {
    const m = /^(\S+)\s+([\s\S]*)$/.exec(line);
    if (!m) throw new Error(`cannot read Dockerfile line: ${line}`);
    const op = (m[1] as string).toUpperCase();
    const rest = m[2] as string;
    if (op === "FROM") stages.push({ from: rest, instructions: [] });
    else if (op === "ARG" && stages.length === 0) {
      const [k, v = ""] = rest.split("=");
      args[k as string] = v;
    } else stages.at(-1)?.instructions.push({ op, args: rest });
  }
  return { args, stages };
}

/** `KEY=value KEY2="value 2"` pairs of an ENV instruction. */
function envPairs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
    const v = m[2] as string;
    out[m[1] as string] = v.startsWith('"') ? (JSON.parse(v) as string) : v;
  }
  return out;
}

const dockerfile = parseDockerfile(readFileSync(DOCKERFILE, "utf8"));
const final = dockerfile.stages.at(-1) as Stage;
const all = (op: string) => final.instructions.filter((i) => i.op === op);
const last = (op: string) => all(op).at(-1)?.args;
const execForm = (text: string | undefined): string[] => {
  expect(text, "exec form (a JSON array)").toMatch(/^\[/);
  return JSON.parse(text as string) as string[];
};
const IMAGE_ENV: Record<string, string> = Object.assign({}, ...all("ENV").map((i) => envPairs(i.args)));
const ENTRYPOINT = execForm(last("ENTRYPOINT"));
const CMD = execForm(last("CMD"));
const HEALTHCHECK = execForm(/\bCMD\s+(\[.*\])$/.exec(last("HEALTHCHECK") ?? "")?.[1]);

describe("containers/Dockerfile", () => {
  it("builds on Node 24 Debian slim, installs production packages only, and runs the worker as a non-root user under tini", () => {
    expect(dockerfile.args.NODE_IMAGE).toBe("node:24-bookworm-slim");
    expect(dockerfile.stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of dockerfile.stages) expect(stage.from).toMatch(/^\$\{NODE_IMAGE\}\s+AS\s+\S+$/);
    const build = dockerfile.stages[0] as Stage;
    expect(build.instructions.some((i) => i.op === "RUN" && /\bnpm ci --omit=dev\b/.test(i.args))).toBe(true);
    const apt = all("RUN").find((i) => /apt-get install/.test(i.args))?.args ?? "";
    for (const pkg of ["chromium", "tini"]) expect(apt).toMatch(new RegExp(`\\s${pkg}\\s`));
    expect(last("USER")).toMatch(/^(?!root$|0$)\S+/);
    expect(ENTRYPOINT).toEqual(["/usr/bin/tini", "--"]);
    expect(CMD).toEqual([
      "node",
      "--experimental-strip-types",
      "--disable-warning=ExperimentalWarning",
      "containers/cli/osprey.ts",
      "worker",
    ]);
    expect(IMAGE_ENV).toMatchObject({
      CHROME_PATH: "/usr/bin/chromium",
      OSPREY_QUEUE: "sqs",
      OSPREY_BLOB_STORE: "s3",
      OSPREY_HEALTH_PORT: expect.stringMatching(/^\d+$/),
    });
    expect(last("HEALTHCHECK")).toMatch(/--timeout=\d+s/);
  });

  it("the image's ENV is the cloud configuration; without the deployment's addresses it stops with one line", () => {
    const config = parseConfig({
      ...IMAGE_ENV,
      OSPREY_SQS_QUEUE_URL: "https://sqs.eu-west-1.amazonaws.com/1/runs",
      OSPREY_S3_BUCKET: "osprey-artifacts",
    });
    expect(config.queue.kind).toBe("sqs");
    expect(config.blobStore).toMatchObject({ kind: "s3", bucket: "osprey-artifacts", endpoint: null });
    expect(config.chromePath).toBe("/usr/bin/chromium");
    expect(() => parseConfig(IMAGE_ENV)).toThrow(
      /^invalid configuration: OSPREY_SQS_QUEUE_URL is required when OSPREY_QUEUE is sqs$/,
    );
    expect(() => parseConfig({ ...IMAGE_ENV, OSPREY_SQS_QUEUE_URL: "https://sqs.example/1/q" })).toThrow(
      /^invalid configuration: OSPREY_S3_BUCKET is required when OSPREY_BLOB_STORE is s3$/,
    );
  });

  it("copies every file the worker loads, and the worker imports no dev dependency (npm ci --omit=dev)", () => {
    const copied = all("COPY")
      .filter((i) => !i.args.includes("--from="))
      .flatMap((i) => i.args.split(/\s+/).slice(0, -1))
      .filter((a) => !a.startsWith("--"));
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    const entry = CMD.find((a) => a.endsWith(".ts")) as string;
    const { files, packages } = importGraph(path.join(REPO_ROOT, entry));
    expect(files.size).toBeGreaterThan(50);
    for (const file of files) {
      const rel = path.relative(REPO_ROOT, file);
      expect(
        copied.some((c) => rel === c || rel.startsWith(`${c.replace(/\/$/, "")}/`)),
        `${rel} is not copied into the image`,
      ).toBe(true);
    }
    expect(packages).toContain("stopwords-iso");
    const dev = [...packages].filter((p) => !(p in pkg.dependencies));
    expect(dev, "imported by the worker but not a production dependency").toEqual([]);
  });
});

/**
 * Files reachable from `entry` through relative imports (static, dynamic, worker URLs, require),
 * and the packages they name. A regex reading, not a bundler: enough to catch a dev dependency
 * or an uncopied folder creeping into the worker's code.
 */
function importGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const builtins = new Set(builtinModules);
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const source = readFileSync(file, "utf8");
    for (const m of source.matchAll(
      /(?:^|[^\w.])(?:import|export)\s[^;]*?\sfrom\s+"([^"]+)"|\bimport\(\s*"([^"]+)"\s*\)|new URL\("(\.[^"]+\.ts)", import\.meta\.url\)|\brequire\(\s*"([^"]+)"\s*\)/gm,
    )) {
      const spec = (m[1] ?? m[2] ?? m[3] ?? m[4]) as string;
      if (/^import\s+type\s/.test(m[0].trim()) || /^export\s+type\s/.test(m[0].trim())) continue;
      if (spec.startsWith(".")) {
        const target = path.resolve(path.dirname(file), spec);
        if (existsSync(target) && target.endsWith(".ts")) visit(target);
        continue;
      }
      if (spec.startsWith("node:") || builtins.has(spec)) continue;
      packages.add(spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : (spec.split("/")[0] as string));
    }
  };
  visit(entry);
  return { files, packages };
}

const port = (url: string) => new URL(url).port;

interface Started {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** ENTRYPOINT + CMD as the image runs them; tini is Debian's package (CI installs it). */
function startImageCommand(env: Record<string, string>): Started {
  const argv = [...ENTRYPOINT, ...CMD];
  const child = spawn(argv[0] as string, argv.slice(1), {
    cwd: REPO_ROOT,
    env: childEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout?.setEncoding("utf8").on("data", (s: string) => {
    out += s;
  });
  child.stderr?.setEncoding("utf8").on("data", (s: string) => {
    err += s;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** The HEALTHCHECK command, run with the container's environment, as Docker runs it. */
function healthcheck(env: Record<string, string>): number | null {
  const [cmd, ...args] = HEALTHCHECK;
  return spawnSync(cmd as string, args, { cwd: REPO_ROOT, env: childEnv(env), timeout: 10_000 }).status;
}

const TINI = ENTRYPOINT[0] as string;
const missing = !TEST_DATABASE_URL
  ? "TEST_DATABASE_URL is not set (the worker needs Postgres; e.g. postgres://postgres@127.0.0.1:5432/postgres)"
  : !isExecutable(TINI)
    ? `${TINI} is missing (apt-get install tini)`
    : null;
if (missing) process.stdout.write(`container image: the entry command is not run here: ${missing}\n`);

describe.skipIf(missing !== null)("the image's entry command, run as written", () => {
  let pg: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let database: Database;
  let fx: Fauxqs;
  let q: FauxqsQueue;
  let site: AgentFixtureSite;
  let model: ScriptedModel;
  let ctx: TestContext;
  let s3: S3Client;
  let env: Record<string, string>;
  let worker: Started;
  const data = tempDir();
  const bucket = "osprey-artifacts";

  beforeAll(async () => {
    pg = await createPostgresDatabase({ fromTemplate: true });
    [database, fx, site, model] = await Promise.all([
      openDatabase({ driver: "pg", url: pg.url }),
      startFauxqsServer(),
      startFixtureSite(),
      startScriptedModel([]),
    ]);
    q = await fx.createQueue({ maxReceives: 5 });
    fx.server.createBucket(bucket);
    s3 = new S3Client({
      endpoint: fx.server.address,
      region: "us-east-1",
      forcePathStyle: true,
      credentials: { accessKeyId: "test", secretAccessKey: "test" },
    });
    const modelConfig = { provider: "openai" as const, baseUrl: model.openaiBaseUrl, model: "scripted-1", apiKey: model.apiKey };
    const allowPrivateHosts = [site.url, site.origin2Url].map((u) => ({ host: "127.0.0.1", port: Number(port(u)) }));
    // The edge's side of a run: the API enqueues on SQS and reads artifacts from the same bucket.
    ctx = createTestContext(database.db, {
      runs: {
        queue: createSqsQueue({ client: fx.client, queueUrl: q.queueUrl, deadLetterQueueUrl: q.deadLetterQueueUrl }),
        blobs: s3BlobStore({ client: s3, bucket }),
        model: modelConfig,
        allowPrivateHosts,
      },
    });
    const deployment = {
      DATABASE_URL: pg.url,
      OSPREY_SQS_QUEUE_URL: q.queueUrl,
      OSPREY_SQS_DLQ_URL: q.deadLetterQueueUrl,
      OSPREY_SQS_ENDPOINT: fx.server.address,
      OSPREY_S3_BUCKET: bucket,
      OSPREY_S3_ENDPOINT: fx.server.address,
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: "test",
      AWS_SECRET_ACCESS_KEY: "test",
      OSPREY_LLM_PROVIDER: "openai",
      OSPREY_LLM_BASE_URL: model.openaiBaseUrl,
      OSPREY_LLM_MODEL: "scripted-1",
      OSPREY_LLM_API_KEY: model.apiKey,
      OSPREY_ALLOW_PRIVATE_HOSTS: `127.0.0.1:${port(site.url)},127.0.0.1:${port(site.origin2Url)}`,
    };
    const thisMachine = { OSPREY_HEALTH_PORT: String(await freeListenPort()), OSPREY_DATA_DIR: data.dir };
    // What the image fixes stays as the image has it.
    for (const k of ["CHROME_PATH", "OSPREY_QUEUE", "OSPREY_BLOB_STORE", "NODE_ENV"]) {
      expect(Object.keys({ ...deployment, ...thisMachine })).not.toContain(k);
    }
    env = { ...IMAGE_ENV, ...deployment, ...thisMachine };
  }, 60_000);

  afterAll(async () => {
    if (worker && worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill("SIGKILL");
    s3?.destroy();
    await Promise.allSettled([site?.close(), model?.close(), fx?.stop()]);
    await database?.close();
    await pg?.drop();
    data.cleanup();
  });

  // One test, because it is one process's life: start, health, a run, SIGTERM.
  it("starts and passes its HEALTHCHECK, consumes a queued run (Chromium, recording in S3), drains on SIGTERM", async () => {
    worker = startImageCommand(env);
    const deadline = Date.now() + 45_000;
    while (!/^Osprey worker \S+ started: .*$/m.test(worker.stdout())) {
      if (worker.child.exitCode !== null) throw new Error(`the worker exited: ${worker.stderr()}`);
      if (Date.now() > deadline) throw new Error(`the worker did not start: ${worker.stderr()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const banner = worker.stdout();
    expect(banner).toContain(`queue sqs ${q.queueUrl}`);
    expect(banner).toContain(`artifacts s3 (s3://${bucket}/ at ${fx.server.address})`);
    expect(banner).toContain(`health http://127.0.0.1:${env.OSPREY_HEALTH_PORT}/healthz`);
    expect(healthcheck(env)).toBe(0);
    const health = (await (await fetch(`http://127.0.0.1:${env.OSPREY_HEALTH_PORT}/healthz`)).json()) as Json;
    expect(health).toMatchObject({ status: "ok", runs_in_flight: 0 });

    if (isExecutable(IMAGE_ENV.CHROME_PATH ?? "")) await consumesARun();
    else process.stdout.write(`container image: no ${IMAGE_ENV.CHROME_PATH} here, so no run is driven\n`);

    worker.child.kill("SIGTERM");
    const exit = await worker.exited;
    expect(exit, worker.stderr()).toEqual({ code: 0, signal: null });
    expect(worker.stderr()).toContain("worker shutting down");
    expect(healthcheck(env)).not.toBe(0);
  }, 120_000);

  async function consumesARun(): Promise<void> {
    const errors: string[] = [];
    model.setScript(sequence(loginSteps({ greeting: "Welcome, Ada" }), errors));
    const { key, accountId } = await ctx.newKey();
    await ctx.services.accounts.addCredits(accountId, 100);
    const res = await ctx.postJson(key, "/v1/automation/run-async", {
      url: `${site.url}/login`,
      goal: "Sign in and tell me the greeting",
      capture_config: { recording: true },
    });
    expect(res.status).toBe(200);
    const id = ((await res.json()) as Json).run_id as string;
    let run: RunRow | null = null;
    const deadline = Date.now() + 60_000;
    for (;;) {
      run = await ctx.runRepo.get(id);
      if (run && (run.status === "COMPLETED" || run.status === "FAILED")) break;
      if (Date.now() > deadline) throw new Error(`run ${id} is still ${run?.status}\n${worker.stderr()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(errors).toEqual([]);
    expect(run).toMatchObject({ status: "COMPLETED", result: { greeting: "Welcome, Ada" } });
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket }));
    expect(listed.Contents?.length ?? 0).toBeGreaterThan(0);
    // Read back through the API, which reads the same bucket: the worker's frames are JPEGs.
    const rec = (await (await ctx.call(key, `/v1/runs/${id}/recording`)).json()) as Json;
    expect(rec.video.frames.length).toBeGreaterThan(0);
    const frame = await ctx.call(key, rec.video.frames[0].path);
    expect(frame.status).toBe(200);
    expect(
      Buffer.from(await frame.arrayBuffer())
        .subarray(0, 2)
        .toString("hex"),
    ).toBe("ffd8");
  }
});
