import type { RunError, TerminalRunStatus } from "../../schema/runs.ts";
import { newId } from "../lib/ids.ts";
import type { RunRepo, RunRow } from "./run.repo.ts";
import { completeEventData, webhookPayload } from "./run.wire.ts";
import type { RunNotifier } from "./run-notifier.ts";
import { runRequestView } from "./run-request.schema.ts";

export type FinishRun = (
  id: string,
  status: TerminalRunStatus,
  result: unknown,
  error: RunError | null,
  /** The worker that drove the run: the write happens only while it still owns the run. */
  ownedBy?: string,
) => Promise<RunRow | null>;

/**
 * The one way a run ends, used by the edge (cancel, enqueue failure) and the workers: the terminal
 * status, result or error, the COMPLETE event and (with a webhook_url) the webhook outbox row in one
 * transaction, then readers are woken. Null when the run was already terminal (first write wins).
 */
export function runFinisher(deps: { repo: RunRepo; notifier: RunNotifier; publicUrl: () => string }): FinishRun {
  return async (id, status, result, error, ownedBy) => {
    const row = await deps.repo.finish(id, {
      status,
      result,
      error,
      ...(ownedBy === undefined ? {} : { ownedBy }),
      completeEvent: completeEventData,
      webhook: (r) => {
        const url = runRequestView(r).webhookUrl;
        if (url === null) return null;
        const payload = webhookPayload(r, deps.publicUrl());
        return { id: newId("msg"), url, eventType: String(payload.type), payload };
      },
    });
    deps.notifier.notify(id);
    return row;
  };
}
