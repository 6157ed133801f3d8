import type { Extractor } from "../../functions/extract/types.ts";
import type { Logger } from "../../functions/lib/logger.ts";
import type { ProfileStore } from "../../functions/profiles/profile.types.ts";
import { LeaseLostError, type ReceivedMessage, type RunQueue } from "../../functions/queue/queue.ts";
import type { RunRepo, RunRow } from "../../functions/runs/run.repo.ts";
import { liveUrl } from "../../functions/runs/run.wire.ts";
import { recordingKey } from "../../functions/runs/run-artifacts.ts";
import type { RunNotifier } from "../../functions/runs/run-notifier.ts";
import { type RunRequest, storedRunRequest } from "../../functions/runs/run-request.schema.ts";
import type { BlobStore } from "../../functions/storage/blob-store.ts";
import type { RunCredentials } from "../../functions/vault/run-credentials.ts";
import { CREDITS_PER_STEP, type RunError, runError } from "../../schema/runs.ts";
import { runAgent } from "../agent/agent.ts";
import { type AgentOutcome, type CredentialKit, RunAbort } from "../agent/agent.types.ts";
import type { ModelProvider } from "../agent/model/types.ts";
import { fingerprintFor } from "../browser/fingerprint.ts";
import { bindProfile, type ProfileBinding } from "../browser/profile-binding.ts";
import type { RunBrowserPool } from "../browser/run-session.ts";
import { applyStealthToContext } from "../browser/stealth.ts";
import { startLiveFrames } from "./live-frames.ts";
import { taskOf } from "./run-task.ts";
import { stepRecorder } from "./step-recorder.ts";

/** Reasons a run's stop controller is aborted with. */
export const SHUTDOWN = "shutdown";
const CANCELLED = "cancelled";
const LEASE_LOST = "lease_lost";

export const systemFailure = (message: string, retryAfter: number | null = null): RunError =>
  runError("SERVICE_BUSY", message, { retryAfter });

/** What driveRun needs from the worker that calls it. */
export interface DriveDeps {
  workerId: string;
  repo: RunRepo;
  queue: RunQueue;
  notifier: RunNotifier;
  browsers: RunBrowserPool;
  extractor: Extractor;
  blobs: BlobStore;
  logger: Logger;
  publicUrl: () => string;
  vision: boolean;
  /** See RunWorkerOptions.credentials. */
  credentials?: Pick<RunCredentials, "forRun" | "reveal">;
  /** See RunWorkerOptions.profiles. */
  profiles?: Pick<ProfileStore, "resolve" | "load" | "save">;
  leaseMs: number;
  heartbeatMs: number;
  cancelPollMs: number;
}

/**
 * Runs the agent under the lease: keeps the message lease and the run row's heartbeat alive,
 * watches for a cancel request, opens the browser session, streams live frames (and stores the
 * recording), and records each step. Null when the lease was lost, "requeue" for a shutdown
 * before acting.
 */
export async function driveRun(
  deps: DriveDeps,
  row: RunRow,
  msg: ReceivedMessage,
  stop: AbortController,
  model: ModelProvider,
): Promise<AgentOutcome | "requeue" | null> {
  const runId = row.id;
  const heartbeat = setInterval(() => {
    // The message's lease only keeps other workers from receiving it again; ownership is the run
    // row's heartbeat. Losing the message (a duplicate was acknowledged elsewhere) is harmless.
    deps.queue.extend(msg, deps.leaseMs).catch((err) => {
      if (!(err instanceof LeaseLostError)) deps.logger.warn("lease extension failed", { run_id: runId, error: err });
    });
    deps.repo
      .heartbeat(runId, deps.workerId)
      .then((owned) => {
        if (!owned && !stop.signal.aborted) {
          deps.logger.warn("this worker no longer owns the run; stopping it here", { run_id: runId });
          stop.abort(LEASE_LOST);
        }
      })
      .catch((err) => deps.logger.warn("run heartbeat failed", { run_id: runId, error: err }));
  }, deps.heartbeatMs);
  const cancelWatch = setInterval(() => {
    deps.repo
      .get(runId)
      .then((r) => {
        if (r?.cancelRequestedAt && !stop.signal.aborted) stop.abort(CANCELLED);
      })
      .catch(() => {});
  }, deps.cancelPollMs);
  let acted = false;
  let live: ReturnType<typeof startLiveFrames> | null = null;
  /**
   * Another worker owns the run now (this one's lease lapsed, e.g. while its event loop was held):
   * stop at once and write nothing more; the new owner drives and ends the run.
   */
  const leaseLost = (): RunAbort => {
    if (!stop.signal.aborted) {
      deps.logger.warn("this worker no longer owns the run; stopping it without writing", { run_id: runId });
      stop.abort(LEASE_LOST);
    }
    return new RunAbort(systemFailure("This worker lost the run to another worker."));
  };
  try {
    let request: RunRequest;
    try {
      request = storedRunRequest(row);
    } catch (err) {
      deps.logger.error("a run's stored request does not parse", { run_id: runId, error: err });
      return { status: "FAILED", error: systemFailure("This run's stored request could not be read; start a new run.") };
    }
    let credentials: CredentialKit | undefined;
    if (request.use_vault) {
      const vault = deps.credentials;
      if (!vault) {
        return {
          status: "FAILED",
          error: systemFailure("This run asks for vault credentials (use_vault) but its worker has no access to the vault."),
        };
      }
      // The items are listed now (metadata only); a value is read from its provider when a field is filled.
      const items = await vault.forRun(row.accountId, request.credential_item_ids);
      credentials = { items, reveal: (itemId) => vault.reveal(row.accountId, itemId) };
    }
    // use_profile: resolved now (profile_id, or the account's default as it is when the run starts).
    let profileRef: { id: string; fingerprintSeed: string } | null = null;
    if (request.use_profile) {
      if (!deps.profiles) {
        return {
          status: "FAILED",
          error: systemFailure("This run uses a profile (use_profile) but its worker cannot read profiles."),
        };
      }
      profileRef = await deps.profiles.resolve(row.accountId, request.profile_id);
      if (!profileRef) {
        return {
          status: "FAILED",
          error: runError(
            "TASK_FAILED",
            "The run's Browser Context Profile no longer exists (deleted, or no default profile any more).",
          ),
        };
      }
    }
    let session: Awaited<ReturnType<RunBrowserPool["open"]>>;
    try {
      session = await deps.browsers.open({ signal: stop.signal });
    } catch (err) {
      if (stop.signal.aborted)
        return stop.signal.reason === SHUTDOWN ? "requeue" : stop.signal.reason === LEASE_LOST ? null : { status: "CANCELLED" };
      deps.logger.error("could not open a browser for a run", { run_id: runId, error: err });
      return { status: "FAILED", error: systemFailure(`No browser is available to run this: ${(err as Error).message}`, 30) };
    }
    let binding: ProfileBinding | null = null;
    try {
      if (request.browser_profile === "stealth") {
        const page = session.activePage();
        // Seeded by the profile (the same device every visit) or else by the run: a retried run
        // (another worker, a relaunched browser) is the same machine.
        const fingerprint = fingerprintFor({
          seed: profileRef?.fingerprintSeed ?? runId,
          browserVersion: await session.browser.version(),
          countryCode: request.proxy_config?.country_code ?? null,
          viewport: page.viewport() ?? undefined,
        });
        await applyStealthToContext(session.context, page, fingerprint);
      }
      if (profileRef && deps.profiles) {
        // Before the first navigation: the run starts logged in where the profile is.
        binding = await bindProfile({
          store: deps.profiles,
          accountId: row.accountId,
          profileId: profileRef.id,
          context: session.context,
          logger: deps.logger,
        });
      }
      const url = liveUrl(deps.publicUrl(), row.liveToken);
      if (url) await deps.repo.appendEvent(runId, "STREAMING_URL", { streaming_url: url });
      deps.notifier.notify(runId);
      const recorder = stepRecorder({
        repo: deps.repo,
        blobs: deps.blobs,
        notifier: deps.notifier,
        logger: deps.logger,
        row,
        workerId: deps.workerId,
      });
      const record = request.capture_config?.recording === true;
      live = startLiveFrames({ session, blobs: deps.blobs, runId, logger: deps.logger, record });
      const outcome = await runAgent(
        taskOf(row, request, { vision: deps.vision }),
        { model, session, extractor: deps.extractor, logger: deps.logger, ...(credentials ? { credentials } : {}) },
        {
          signal: stop.signal,
          beforeFirstAction: async () => {
            acted = true;
            if (!(await deps.repo.markActed(runId, deps.workerId))) throw leaseLost();
          },
          onStep: async (step) => {
            if (!(await recorder.record(step))) throw leaseLost();
            // Keyed by (run, step): a step an earlier attempt already paid for is not charged again.
            const charge = await deps.repo.chargeStep(runId, deps.workerId, step.step, CREDITS_PER_STEP);
            if (charge === "lost") throw leaseLost();
            if (charge === "short") {
              throw new RunAbort(
                runError(
                  "INSUFFICIENT_CREDITS",
                  "The account ran out of credits during the run; add credits and start a new run.",
                ),
              );
            }
          },
        },
      );
      if (stop.signal.reason === LEASE_LOST) return null;
      if (stop.signal.reason === SHUTDOWN && !acted) return "requeue";
      return outcome;
    } finally {
      // The state goes back to the profile however the run ended, unless another worker owns the
      // run now or it is requeued without having acted (it will load the profile again).
      const requeued = stop.signal.reason === SHUTDOWN && !acted;
      if (binding && stop.signal.reason !== LEASE_LOST && !requeued) {
        await binding
          .save(runId)
          .catch((err: unknown) => deps.logger.warn("could not save the run's profile", { run_id: runId, error: err }));
      }
      binding?.stop();
      const frames = (await live?.stop()) ?? [];
      // A worker that lost the run leaves the recording to the new owner.
      if (frames.length > 0 && stop.signal.reason !== LEASE_LOST) {
        await deps.blobs
          .put(recordingKey(runId), Buffer.from(JSON.stringify(frames)))
          .catch((err) => deps.logger.warn("could not store the recording", { run_id: runId, error: err }));
      }
      await session.close();
    }
  } finally {
    clearInterval(heartbeat);
    clearInterval(cancelWatch);
  }
}
