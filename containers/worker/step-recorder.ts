import type { Logger } from "../../functions/lib/logger.ts";
import type { RunRepo, RunRow } from "../../functions/runs/run.repo.ts";
import type { RunNotifier } from "../../functions/runs/run-notifier.ts";
import { type BlobStore, contentKey } from "../../functions/storage/blob-store.ts";
import type { AgentStep } from "../agent/agent.types.ts";

/** The purpose is stored in its own column; the args keep only what the action used. */
const withoutPurpose = (args: Record<string, unknown>) => {
  const { purpose: _purpose, ...rest } = args;
  return rest;
};

/**
 * Persists each agent step: its artifacts (per capture_config) in the blob store under content
 * keys, the step row and counters, and a PROGRESS event carrying the model's stated purpose.
 * Artifact failures are logged, never fatal to the run (live-view frames: live-frames.ts).
 * `record` is false, and nothing about the step is written, once this worker no longer owns the run.
 */
export function stepRecorder(deps: {
  repo: RunRepo;
  blobs: BlobStore;
  notifier: RunNotifier;
  logger: Logger;
  row: RunRow;
  workerId: string;
}) {
  const runId = deps.row.id;
  const put = async (data: Buffer | undefined): Promise<string | null> => {
    if (!data) return null;
    const key = contentKey(data);
    try {
      await deps.blobs.put(key, data);
      return key;
    } catch (err) {
      deps.logger.warn("could not store a step artifact", { run_id: runId, error: err });
      return null;
    }
  };

  return {
    async record(step: AgentStep): Promise<boolean> {
      const [screenshotKey, htmlKey, elementsKey] = await Promise.all([
        put(step.screenshot),
        put(step.html === undefined ? undefined : Buffer.from(step.html)),
        put(step.elements === undefined ? undefined : Buffer.from(JSON.stringify(step.elements))),
      ]);
      const owned = await deps.repo.addStep(
        {
          runId,
          step: step.step,
          purpose: step.purpose,
          action: { name: step.action.name, args: withoutPurpose(step.action.args) },
          ok: step.ok,
          message: step.message.slice(0, 4000),
          url: step.url,
          title: step.title,
          screenshotKey,
          htmlKey,
          elementsKey,
          modelMs: Math.round(step.modelMs),
          actionMs: Math.round(step.actionMs),
          captureMs: Math.round(step.captureMs),
        },
        step.usage,
        deps.workerId,
      );
      if (!owned) return false;
      await deps.repo.appendEvent(runId, "PROGRESS", {
        purpose: step.purpose,
        step: step.step,
        action: step.action.name,
        ok: step.ok,
        url: step.url,
      });
      deps.notifier.notify(runId);
      return true;
    },
  };
}
