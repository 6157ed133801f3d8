import type { OpenAPIHono } from "@hono/zod-openapi";
import { createLocalApp } from "../../functions/app.ts";
import type { Db } from "../../functions/db/db.ts";
import { inlineExtractor } from "../../functions/extract/pool.ts";
import { buildFetch, type FetchBuildInput } from "../../functions/fetch/build.ts";
import { unavailableRenderer } from "../../functions/fetch/renderer.ts";
import type { AppEnv } from "../../functions/http/app-env.ts";
import type { Clock } from "../../functions/lib/clock.ts";
import { defaultIds } from "../../functions/lib/ids.ts";
import { type Logger, silentLogger } from "../../functions/lib/logger.ts";
import type { ProfileService } from "../../functions/profiles/profile.service.ts";
import { unavailableQueue } from "../../functions/queue/queue.ts";
import type { RunsApi } from "../../functions/runs/build.ts";
import { type BuildRunsInput, buildRuns } from "../../functions/runs/build.ts";
import type { RunRepo } from "../../functions/runs/run.repo.ts";
import { runLifecycle } from "../../functions/runs/run-lifecycle.ts";
import { createRunNotifier } from "../../functions/runs/run-notifier.ts";
import { createLocalIndex } from "../../functions/search/local/local-index.ts";
import { type SearchServiceDeps, searchService } from "../../functions/search/search.service.ts";
import { createServices, type Services } from "../../functions/services/index.ts";
import type { SessionService } from "../../functions/sessions/session.service.ts";
import { memoryBlobStore } from "../../functions/storage/blob-store.ts";
import { runCredentials } from "../../functions/vault/run-credentials.ts";
import type { VaultService } from "../../functions/vault/vault.service.ts";
import type { Plan } from "../../schema/plans.ts";

/** A clock tests can move. */
export class TestClock implements Clock {
  private t: number;
  constructor(start = Date.parse("2026-11-21T10:00:00.000Z")) {
    this.t = start;
  }
  now(): Date {
    return new Date(this.t);
  }
  set(iso: string | number): void {
    this.t = typeof iso === "number" ? iso : Date.parse(iso);
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

export interface TestContext {
  app: OpenAPIHono<AppEnv>;
  services: Services;
  runs: RunsApi;
  /** The repository under `runs` (its lifecycle's): tests read and write run rows directly; the app never does. */
  runRepo: RunRepo;
  clock: TestClock;
  /** Creates an account with one key and returns the key. */
  newKey(opts?: { plan?: Plan; entitlements?: string[] }): Promise<{ key: string; accountId: string; keyId: string }>;
  /** app.request with the X-API-Key header set. */
  call(key: string, path: string, init?: RequestInit): Promise<Response>;
  /** A POST of `body` as JSON, with the key. */
  postJson(key: string, path: string, body: unknown): Promise<Response>;
}

export interface TestContextOptions {
  logger?: Logger;
  clock?: TestClock;
  /** Overrides of the fetch API's adapters (renderer, extractor, resolver, config). */
  fetch?: Partial<Omit<FetchBuildInput, "db" | "clock" | "ids" | "logger">>;
  /**
   * Overrides of the run service's adapters; by default no queue (runs cannot start), no model and
   * a lifecycle of its own over `db` (pass the worker's to share its notifier).
   */
  runs?: Partial<Omit<BuildRunsInput, "logger">>;
  /**
   * The search API: enabled by default with the local index as its only provider (no upstreams);
   * `providers` replaces that list; `enabled: false` serves the API as "not available".
   */
  search?: { enabled?: boolean } & Partial<
    Pick<SearchServiceDeps, "providers" | "cacheTtlMs" | "providerTimeoutMs" | "ownWrites">
  >;
  /** The browser session API; absent serves it as "not available". */
  sessions?: (deps: { db: Db; services: Services; clock: TestClock; logger: Logger }) => SessionService;
  /** The credential vault API; absent: no vault paths. */
  vault?: (deps: { db: Db; clock: TestClock; logger: Logger }) => VaultService;
  /** The Browser Context Profile API; absent: no profile paths. */
  profiles?: (deps: { db: Db; clock: TestClock; logger: Logger }) => ProfileService;
}

export function createTestContext(db: Db, opts: TestContextOptions = {}): TestContext {
  const clock = opts.clock ?? new TestClock();
  const logger = opts.logger ?? silentLogger;
  const services = createServices({ db, clock, ids: defaultIds });
  const fetch = buildFetch({
    config: { allowPrivateHosts: [], fetchNeverExpireHosts: [] },
    renderer: unavailableRenderer("no browser in this test"),
    extractor: inlineExtractor,
    blobs: memoryBlobStore(),
    ...opts.fetch,
    db,
    clock,
    ids: defaultIds,
    logger,
  });
  const lifecycle =
    opts.runs?.lifecycle ?? runLifecycle({ db, notifier: createRunNotifier(), publicUrl: () => "http://127.0.0.1:8787" });
  const runs = buildRuns({
    queue: unavailableQueue("no queue in this test"),
    blobs: memoryBlobStore(),
    model: null,
    // As the server: use_vault admission checks the account's items (pass `credentials: undefined` for a deployment without a vault).
    credentials: runCredentials({ db, keyring: null, providers: {} }),
    ...opts.runs,
    lifecycle,
    logger,
    clock,
  });
  const { enabled = true, providers = [createLocalIndex({ db, clock }).provider], ...searchOpts } = opts.search ?? {};
  // As the server wires it: a search waits for the pages its account's fetches have fed the index.
  const feed = opts.fetch?.index;
  const ownWrites = feed ? (accountId: string) => feed.writtenFor(accountId) : undefined;
  const search = enabled
    ? searchService({
        db,
        clock,
        logger,
        rateLimits: services.rateLimits,
        providers,
        ...(ownWrites ? { ownWrites } : {}),
        ...searchOpts,
      })
    : null;
  const sessions = opts.sessions?.({ db, services, clock, logger }) ?? null;
  const vault = opts.vault?.({ db, clock, logger }) ?? null;
  const profiles = opts.profiles?.({ db, clock, logger }) ?? null;
  const app = createLocalApp({ services, ids: defaultIds, logger, fetch, runs, search, sessions, vault, profiles });
  return {
    app,
    services,
    runs,
    runRepo: lifecycle.repo,
    clock,
    async newKey({ plan = "pro", entitlements = [] } = {}) {
      const account = await services.accounts.create({ plan, entitlements });
      const { key, row } = await services.apiKeys.create({ accountId: account.id });
      return { key, accountId: account.id, keyId: row.id };
    },
    postJson(key, path, body) {
      return this.call(key, path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    },
    async call(key, path, init = {}) {
      const headers = new Headers(init.headers);
      headers.set("x-api-key", key);
      return app.request(path, { ...init, headers });
    },
  };
}
