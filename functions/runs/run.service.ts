import {
  DEFAULT_MAX_DURATION_SECONDS,
  isTerminal,
  type RunEntry,
  type RunStatus,
  runError,
  runMessage,
} from "../../schema/runs.ts";
import type { AllowedHost } from "../config/config.ts";
import { AppError } from "../lib/app-error.ts";
import type { Clock } from "../lib/clock.ts";
import { newId, randomBase62 } from "../lib/ids.ts";
import type { Logger } from "../lib/logger.ts";
import { type PageRequest, toPage } from "../lib/pagination.ts";
import type { ProfileStore } from "../profiles/profile.types.ts";
import type { RunQueue } from "../queue/queue.ts";
import type { AuthContext } from "../services/api-key.service.ts";
import type { BlobStore } from "../storage/blob-store.ts";
import type { RunCredentials } from "../vault/run-credentials.ts";
import type { RunRow } from "./run.repo.ts";
import { liveViewOpen, type RunScreenshot, type RunWire, runToWire } from "./run.wire.ts";
import { admitRun, inChild, inChildAsync, noDefaultProfile, profileNotFound } from "./run-admission.ts";
import type { RunLifecycle } from "./run-lifecycle.ts";
import { assertValidOutputSchema } from "./run-policy.ts";
import type { RunRequest } from "./run-request.schema.ts";

export interface RunServiceDeps {
  /** The process's runs: repository, finisher, notifier and public URL (shared with its worker, if any). */
  lifecycle: RunLifecycle;
  queue: RunQueue;
  blobs: BlobStore;
  logger: Logger;
  /** Environment variables still to set before a model can be used; non-empty refuses runs with 403. */
  modelMissing: string[];
  /** OSPREY_ALLOW_PRIVATE_HOSTS: start URLs on these hosts pass the address policy. */
  allowPrivateHosts: AllowedHost[];
  /** Decides whether a finished run's streaming_url is still handed out (LIVE_VIEW_GRACE_MS). */
  clock: Clock;
  /**
   * The longest a response may stay open (a blocking /run, an SSE stream): set where the platform
   * ends invocations (AWS Lambda: 15 minutes). Past it /run answers with the run as it stands and
   * a stream ends; the run itself goes on. Unset: no limit beyond the run's own budget.
   */
  responseCapMs?: number;
  /**
   * The account's vault items, for use_vault runs: admission checks credential_item_ids against
   * them (400 naming the entry). Absent: use_vault is refused with 403.
   */
  credentials?: Pick<RunCredentials, "admit">;
  /** Browser Context Profiles: use_profile resolves profile_id or the account's default. Absent: none exist. */
  profiles?: Pick<ProfileStore, "resolve">;
}

/** How long /run waits beyond the run's own duration budget before answering with the run as it stands. */
const BLOCKING_GRACE_MS = 120_000;
/** How long POST /cancel waits for a running run to stop before answering. */
const CANCEL_WAIT_MS = 10_000;
/** A live-view token as minted at insert (randomBase62(32)); anything else is not looked up. */
const LIVE_TOKEN = /^[A-Za-z0-9]{32}$/;

/** What the live page polls (GET /v1/live/{token}/state): the run's progress and its latest step. */
export interface LiveState {
  run_id: string;
  status: string;
  finished: boolean;
  steps: number;
  purpose: string | null;
  url: string | null;
}

export function runService(deps: RunServiceDeps) {
  const { repo, finish, notifier, publicUrl } = deps.lifecycle;
  // Streaming URLs are built on the public URL, read per answer (it is known only once listening).
  const wire = (row: RunRow, screenshots?: RunScreenshot[]) => runToWire(row, publicUrl(), deps.clock.now(), screenshots);

  /** The request-time checks of spec 4.1/7.1, in the order a caller can act on them. */
  const admissionDeps = { ...deps, vault: deps.credentials !== undefined, profiles: deps.profiles !== undefined };
  const admit = (auth: AuthContext, body: RunRequest): void => admitRun(admissionDeps, auth, body);
  /** After admit: the named vault items must be the account's and enabled (a database read). */
  const admitStored = async (auth: AuthContext, body: RunRequest): Promise<void> => {
    if (body.use_vault) await deps.credentials?.admit(auth.account.id, body.credential_item_ids);
    if (body.use_profile && deps.profiles) {
      const profile = await deps.profiles.resolve(auth.account.id, body.profile_id);
      if (!profile) throw body.profile_id !== undefined ? profileNotFound(body.profile_id) : noDefaultProfile();
      if (profile.proxyCountryCode !== null) {
        // The profile's egress country is part of its identity; runs here cannot route by country.
        throw new AppError(
          "FORBIDDEN",
          `Browser Context Profile ${profile.id} egresses from ${profile.proxyCountryCode}, which runs on this server cannot honour (no proxy pool for runs); clear its proxy_country_code or use it from a browser session.`,
        );
      }
    }
  };

  const capMessage = (open: number, max: number) =>
    `This account has ${open} pending runs, the maximum its plan allows is ${max}; wait for one to finish.`;

  /** Inserts then enqueues (a queued id always has a row); a failed send fails the run, never leaves it PENDING. */
  async function insertAndEnqueue(
    auth: AuthContext,
    body: RunRequest,
    entry: RunEntry,
    batchId: string | null,
  ): Promise<{ ok: true; row: RunRow } | { ok: false; open: number }> {
    const max = auth.account.limits.maxPendingRuns;
    const inserted = await repo.insertWithinCap(
      {
        id: newId("run"),
        accountId: auth.account.id,
        keyId: auth.keyId,
        keyScope: auth.scope,
        subUserId: auth.subUserId,
        entry,
        batchId,
        request: body as Record<string, unknown>,
        liveToken: randomBase62(32),
      },
      max,
    );
    if (!inserted.ok) return inserted;
    try {
      await deps.queue.send(runMessage(inserted.row.id));
    } catch (err) {
      deps.logger.error("enqueue failed; failing the run", { run_id: inserted.row.id, error: err });
      const failed = await finish(
        inserted.row.id,
        "FAILED",
        null,
        runError("SERVICE_BUSY", "The run could not be queued; retry shortly.", { retryAfter: 5 }),
      );
      return { ok: true, row: failed ?? inserted.row };
    }
    return inserted;
  }

  async function owned(auth: AuthContext, id: string): Promise<RunRow> {
    const row = await repo.getOwned(id, auth.account.id, auth.scope);
    if (!row) throw new AppError("NOT_FOUND", `No run with id ${id}.`);
    return row;
  }

  async function screenshotsOf(row: RunRow): Promise<RunScreenshot[]> {
    const out: RunScreenshot[] = [];
    for (const s of await repo.steps(row.id)) {
      if (!s.screenshotKey) continue;
      const data = await deps.blobs.get(s.screenshotKey);
      if (data) out.push({ step: s.step, url: s.url, media_type: "image/png", data: data.toString("base64") });
    }
    return out;
  }

  /**
   * The run behind a live-view token, while its live view is open (liveViewOpen: until
   * LIVE_VIEW_GRACE_MS after the run ends). A malformed, unknown or expired token is one 404, so
   * the answer says nothing about which it was.
   */
  async function liveView(token: string): Promise<RunRow> {
    const row = LIVE_TOKEN.test(token) ? await repo.getByLiveToken(token) : null;
    if (!row || !liveViewOpen(row, deps.clock.now()))
      throw new AppError("NOT_FOUND", "No live view at this address (it may have expired).");
    return row;
  }

  return {
    admit,
    finish,
    /** The caller's run and its steps, oldest first (404 for a run the caller does not own). */
    async stepsOf(auth: AuthContext, id: string) {
      const row = await owned(auth, id);
      return { row, steps: await repo.steps(row.id) };
    },
    /** One step of the caller's run, or null (404 for a run the caller does not own). */
    async stepOf(auth: AuthContext, id: string, step: number) {
      const row = await owned(auth, id);
      return { row, step: await repo.step(row.id, step) };
    },
    /** A run's events after `afterId` (the SSE stream reads them for the run it created). */
    eventsAfter: (runId: string, afterId: number) => repo.eventsAfter(runId, afterId),
    logger: deps.logger,

    liveView,
    /** The live page's poll: the open run's status and the purpose and URL of its latest step. */
    async liveState(token: string): Promise<LiveState> {
      const row = await liveView(token);
      const last = row.steps > 0 ? await repo.step(row.id, row.steps) : null;
      return {
        run_id: row.id,
        status: row.status,
        finished: isTerminal(row.status),
        steps: row.steps,
        purpose: last?.purpose ?? null,
        url: last?.url ?? null,
      };
    },

    /** /run, /run-async, /run-sse: admitted, inserted (within the pending-run cap), enqueued. */
    async create(auth: AuthContext, body: RunRequest, entry: Exclude<RunEntry, "batch">): Promise<RunRow> {
      admit(auth, body);
      await admitStored(auth, body);
      const created = await insertAndEnqueue(auth, body, entry, null);
      if (!created.ok) throw new AppError("RATE_LIMIT_EXCEEDED", capMessage(created.open, auth.account.limits.maxPendingRuns));
      return created.row;
    },

    /**
     * /run-batch: every child is validated and admitted first (a failure there fails the whole
     * batch with the 7.1 body); then each child is inserted and enqueued on its own, and a child
     * that cannot be (the pending-run cap) is reported in its slot. No slot at all → 429.
     */
    async createBatch(auth: AuthContext, bodies: RunRequest[]) {
      // Every child's output_schema first, so a 400 anywhere wins over another child's 403.
      for (const [i, b] of bodies.entries()) inChild(i, () => assertValidOutputSchema(b));
      for (const [i, b] of bodies.entries()) inChild(i, () => admit(auth, b));
      for (const [i, b] of bodies.entries()) await inChildAsync(i, () => admitStored(auth, b));
      const batchId = newId("batch");
      const slots: (
        | { index: number; run_id: string; status: RunStatus }
        | { index: number; run_id: null; error: { code: string; message: string } }
      )[] = [];
      let accepted = 0;
      for (const [index, body] of bodies.entries()) {
        const created = await insertAndEnqueue(auth, body, "batch", batchId);
        if (created.ok) {
          accepted++;
          slots.push({ index, run_id: created.row.id, status: created.row.status as RunStatus });
        } else {
          if (accepted === 0 && index === 0) {
            throw new AppError("RATE_LIMIT_EXCEEDED", capMessage(created.open, auth.account.limits.maxPendingRuns));
          }
          slots.push({
            index,
            run_id: null,
            error: { code: "RATE_LIMIT_EXCEEDED", message: capMessage(created.open, auth.account.limits.maxPendingRuns) },
          });
        }
      }
      return { batch_id: batchId, accepted, rejected: bodies.length - accepted, runs: slots };
    },

    async get(auth: AuthContext, id: string, withScreenshots: boolean): Promise<RunWire> {
      const row = await owned(auth, id);
      return wire(row, withScreenshots ? await screenshotsOf(row) : undefined);
    },

    owned,
    wire,
    notifierWait: (id: string, ms: number, signal?: AbortSignal) => notifier.wait(id, ms, signal),

    async list(
      auth: AuthContext,
      filter: { status?: RunStatus; batch_id?: string; created_after?: Date; created_before?: Date },
      page: PageRequest,
    ) {
      const { rows, total } = await repo.list(
        {
          accountId: auth.account.id,
          keyScope: auth.scope,
          status: filter.status,
          batchId: filter.batch_id,
          createdAfter: filter.created_after,
          createdBefore: filter.created_before,
        },
        page,
      );
      return toPage(
        rows.map((r) => wire(r)),
        total,
        page,
      );
    },

    /**
     * Spec 3.1: only /run-async, /run-sse (and batch) runs can be cancelled. A PENDING run ends
     * CANCELLED at once; a RUNNING one is flagged and its worker stops it (this waits up to 10 s
     * for that). A terminal run is returned as it is (cancel is idempotent).
     */
    async cancel(auth: AuthContext, id: string): Promise<RunWire> {
      const row = await owned(auth, id);
      if (row.entry === "run") {
        throw new AppError(
          "INVALID_INPUT",
          "Runs created through POST /v1/automation/run are blocking and cannot be cancelled.",
          {
            details: [
              { code: "not_cancellable", path: ["id"], message: "run was created through /v1/automation/run", location: "path" },
            ],
          },
        );
      }
      if (isTerminal(row.status)) return wire(row);
      await repo.requestCancel(id);
      const cancelled = runError("CANCELLED", "The run was cancelled by the caller.");
      if (row.status === "PENDING") {
        const done = await finish(id, "CANCELLED", null, cancelled);
        if (done) return wire(done);
      }
      notifier.notify(id);
      const until = Date.now() + CANCEL_WAIT_MS;
      for (;;) {
        const now = await repo.get(id);
        if (!now || isTerminal(now.status) || Date.now() >= until) return wire(now ?? row);
        await notifier.wait(id, Math.min(500, until - Date.now()));
      }
    },

    /** Waits until the run is terminal (or `maxMs` passes, or `signal` aborts) and returns it. */
    async waitTerminal(id: string, maxMs: number, signal?: AbortSignal): Promise<RunRow> {
      const until = Date.now() + maxMs;
      for (;;) {
        const row = await repo.get(id);
        if (!row) throw new Error(`run ${id} vanished`);
        if (isTerminal(row.status) || Date.now() >= until || signal?.aborted) return row;
        await notifier.wait(id, Math.min(1000, until - Date.now()), signal);
      }
    },

    blockingBudgetMs(body: RunRequest): number {
      const budget = (body.agent_config?.max_duration_seconds ?? DEFAULT_MAX_DURATION_SECONDS) * 1000 + BLOCKING_GRACE_MS;
      return Math.min(budget, deps.responseCapMs ?? Number.POSITIVE_INFINITY);
    },
    /** How long an SSE stream may stay open (responseCapMs), or Infinity. */
    streamCapMs: deps.responseCapMs ?? Number.POSITIVE_INFINITY,
    /** The base URL callers reach this server at (help_url, live views). */
    publicUrl: () => publicUrl(),
  };
}

export type RunService = ReturnType<typeof runService>;
