import { afterAll, beforeAll, beforeEach } from "vitest";
import { createModelProvider } from "../../containers/agent/model/create-provider.ts";
import { createRunBrowserPool } from "../../containers/browser/run-browser.ts";
import type { RunBrowserPool } from "../../containers/browser/run-session.ts";
import { deadLetterFailsRun } from "../../containers/local/run-stack.ts";
import { createRunWorker, type RunWorker, type RunWorkerOptions } from "../../containers/worker/run-worker.ts";
import type { AllowedHost } from "../../functions/config/config.ts";
import type { ModelConfig } from "../../functions/config/model-settings.ts";
import type { Db } from "../../functions/db/db.ts";
import { inlineExtractor } from "../../functions/extract/pool.ts";
import { type Logger, silentLogger } from "../../functions/lib/logger.ts";
import type { Resolver } from "../../functions/net/address-policy.ts";
import type { ProfileService } from "../../functions/profiles/profile.service.ts";
import type { ProfileStore } from "../../functions/profiles/profile.types.ts";
import { createPgQueue } from "../../functions/queue/pg-queue.ts";
import type { RunQueue } from "../../functions/queue/queue.ts";
import { type RunLifecycle, runLifecycle } from "../../functions/runs/run-lifecycle.ts";
import { createRunNotifier, type RunNotifier } from "../../functions/runs/run-notifier.ts";
import { type BlobStore, memoryBlobStore } from "../../functions/storage/blob-store.ts";
import type { RunCredentials } from "../../functions/vault/run-credentials.ts";
import type { Plan } from "../../schema/plans.ts";
import { call, idx, type ScriptStep, stateText } from "../agent/loop/harness.ts";
import { createTestContext, type TestContext, type TestContextOptions } from "./app.ts";
import type { DriverCase, TestDatabase } from "./databases.ts";
import { type AgentFixtureSite, LOGIN, startFixtureSite } from "./fixture-site.ts";
import { type Protocol, type Script, type ScriptedModel, startScriptedModel } from "./scripted-model.ts";
import { CHROME } from "./test-session.ts";

export const PUBLIC_URL = "http://127.0.0.1:8787";

export interface RunHarness {
  ctx: TestContext;
  db: Db;
  site: AgentFixtureSite;
  model: ScriptedModel;
  queue: RunQueue;
  notifier: RunNotifier;
  blobs: BlobStore;
  browsers: RunBrowserPool;
  modelConfig: ModelConfig;
  /** Starts an in-process worker (stopped by close()). */
  startWorker(overrides?: Partial<RunWorkerOptions>): RunWorker;
  /** An account on `plan` with `credits` and one key. */
  newKey(opts?: { plan?: Plan; entitlements?: string[]; credits?: number }): Promise<{ key: string; accountId: string }>;
  close(): Promise<void>;
}

const hostOf = (url: string) => {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port) };
};

/**
 * Everything a run needs, real: the app over `db`, the Postgres queue, a Chromium pool allowed to
 * reach the fixture site (and only it), the scripted model server behind the real provider, and
 * workers on demand.
 */
export async function startRunHarness(
  db: Db,
  opts: {
    protocol?: Protocol;
    script?: Script;
    logger?: Logger;
    heartbeatMs?: number;
    /** Hosts the run API accepts beyond the fixture site's (e.g. a loopback webhook receiver). */
    allowPrivateHosts?: AllowedHost[];
    /** Replaces the default Postgres queue (e.g. the SQS adapter); built from the harness's run lifecycle. */
    queue?: (deps: { lifecycle: RunLifecycle; logger: Logger }) => RunQueue;
    /** Hosts the browser (and the run API's start URLs) may reach beyond the fixture site's, e.g. named test sites. */
    browserHosts?: AllowedHost[];
    /** The browser's DNS (a stub mapping test names to 127.0.0.1). */
    resolver?: Resolver;
    /** The vault's run side, for the API's admission and every worker (default: the test context's, which reveals nothing). */
    credentials?: RunCredentials;
    /** Browser Context Profiles: the API (the context's) and the store runs and workers load and save with. */
    profiles?: { service: ProfileService; store: ProfileStore };
    /** Where artifacts go (default: memory). */
    blobs?: BlobStore;
    /** The vault API (sync, list), as createTestContext takes it. */
    vault?: TestContextOptions["vault"];
  } = {},
): Promise<RunHarness> {
  const logger = opts.logger ?? silentLogger;
  const [site, model] = await Promise.all([startFixtureSite(), startScriptedModel(opts.script ?? [])]);
  const protocol = opts.protocol ?? "openai";
  const modelConfig: ModelConfig = {
    provider: protocol,
    baseUrl: protocol === "openai" ? model.openaiBaseUrl : model.anthropicBaseUrl,
    model: "scripted-1",
    apiKey: model.apiKey,
  };
  const notifier = createRunNotifier();
  const blobs = opts.blobs ?? memoryBlobStore();
  // One lifecycle for the app and every worker, as in the server: a finish wakes its readers at once.
  const lifecycle = runLifecycle({ db, notifier, publicUrl: () => PUBLIC_URL });
  const queue =
    opts.queue?.({ lifecycle, logger }) ??
    createPgQueue({
      db,
      maxReceives: 5,
      pollIntervalMs: 50,
      onDeadLetter: deadLetterFailsRun({ lifecycle, logger }),
    });
  const browsers = createRunBrowserPool({
    executablePath: CHROME,
    maxConcurrency: 3,
    allowPrivateHosts: [hostOf(site.url), hostOf(site.origin2Url), ...(opts.browserHosts ?? [])],
    ...(opts.resolver ? { resolver: opts.resolver } : {}),
    logger,
  });
  const ctx = createTestContext(db, {
    logger,
    runs: {
      lifecycle,
      queue,
      blobs,
      model: modelConfig,
      allowPrivateHosts: [
        hostOf(site.url),
        hostOf(site.origin2Url),
        ...(opts.browserHosts ?? []),
        ...(opts.allowPrivateHosts ?? []),
      ],
      heartbeatMs: opts.heartbeatMs,
      ...(opts.credentials ? { credentials: opts.credentials } : {}),
      ...(opts.profiles ? { profiles: opts.profiles.store } : {}),
    },
    ...(opts.vault ? { vault: opts.vault } : {}),
    ...(opts.profiles ? { profiles: () => (opts.profiles as { service: ProfileService }).service } : {}),
  });
  const workers: RunWorker[] = [];
  return {
    ctx,
    db,
    site,
    model,
    queue,
    notifier,
    blobs,
    browsers,
    modelConfig,
    startWorker(overrides = {}) {
      const provider = createModelProvider(modelConfig, {
        logger,
        timeoutMs: 20_000,
        maxRetries: 1,
        baseDelayMs: 5,
        maxDelayMs: 20,
      });
      const worker = createRunWorker({
        lifecycle,
        queue,
        browsers,
        model: provider,
        extractor: inlineExtractor,
        blobs,
        logger,
        concurrency: 2,
        leaseMs: 5_000,
        pollWaitMs: 200,
        cancelPollMs: 100,
        ...(opts.credentials ? { credentials: opts.credentials } : {}),
        ...(opts.profiles ? { profiles: opts.profiles.store } : {}),
        ...overrides,
      });
      worker.start();
      workers.push(worker);
      return worker;
    },
    async newKey({ plan = "pro", entitlements = [], credits = 1000 } = {}) {
      const { key, accountId } = await ctx.newKey({ plan, entitlements });
      if (credits > 0) await ctx.services.accounts.addCredits(accountId, credits);
      return { key, accountId };
    },
    async close() {
      await Promise.allSettled(workers.map((w) => w.stop(2000)));
      await Promise.allSettled([browsers.close(), site.close(), model.close(), queue.close()]);
    },
  };
}

/** Reads an SSE response to its end: the parsed `data:` events, in order. */
export async function readSse(res: Response): Promise<Record<string, unknown>[]> {
  const text = await res.text();
  const events: Record<string, unknown>[] = [];
  for (const block of text.split("\n\n")) {
    const line = block.trim();
    if (!line) continue;
    if (!line.startsWith("data: ")) throw new Error(`not an SSE data line: ${line}`);
    events.push(JSON.parse(line.slice(6)) as Record<string, unknown>);
  }
  return events;
}

/**
 * The scripted model's login on the fixture site: it finds each field and the button in the page
 * state it is sent (so the state must carry them), and answers `result` once it sees the greeting.
 */
export function loginSteps(result: Record<string, unknown> = { greeting: "Welcome, Ada", account: 4711 }): ScriptStep[] {
  return [
    (t) => call("type", { index: idx(t, /Email \[(\d+) textbox:email/), text: LOGIN.email }),
    (t) => call("type", { index: idx(t, /Password \[(\d+) textbox:password/), text: LOGIN.password }),
    (t) => call("click", { index: idx(t, /\[(\d+) button\]Sign in/) }),
    (t) => {
      if (!stateText(t).includes("Welcome, Ada")) throw new Error("not logged in");
      return call("done", { success: true, result });
    },
  ];
}

/** Response bodies, read loosely in the run tests. */
// biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely in these tests
export type Json = Record<string, any>;

/** The login task on the fixture site as a run request body, with `extra` fields on top. */
export const loginBody = (h: RunHarness, extra: Json = {}): Json => ({
  url: `${h.site.url}/login`,
  goal: "Sign in and tell me the greeting",
  ...extra,
});

/** What a whole-run suite works with; the fields are set by the hooks, so read them inside tests only. */
export interface RunSuite {
  /** The harness for the whole file, over its own database. */
  h: RunHarness;
  /** The in-process worker started with the harness. */
  worker: RunWorker;
  /** A fresh account's key (pro plan, 1000 credits) for each test. */
  key: string;
  accountId: string;
  /** Script errors of the current test (for sequence()), emptied before each test. */
  errors: string[];
  /** loginBody() on this suite's harness. */
  body(extra?: Json): Json;
}

/**
 * Registers the hooks the whole-run suites share, in the describe block it is called from: a
 * database from `open`, a harness over it (Postgres queue, heartbeat every 300 ms) with one worker
 * for the file, and a fresh key and error list for each test.
 */
export function useRunSuite(open: DriverCase["open"]): RunSuite {
  let database: TestDatabase | undefined;
  const s = { errors: [] as string[], body: (extra: Json = {}) => loginBody(s.h, extra) } as RunSuite;

  beforeAll(async () => {
    database = await open();
    s.h = await startRunHarness(database.db, { heartbeatMs: 300 });
    s.worker = s.h.startWorker();
  });
  afterAll(async () => {
    await s.h?.close();
    await database?.dispose();
  });
  beforeEach(async () => {
    s.errors = [];
    ({ key: s.key, accountId: s.accountId } = await s.h.newKey());
  });
  return s;
}
