import { type RunEntry, type RunError, type RunStatus, runErrorWithHelp } from "../../schema/runs.ts";
import type { RunEventRow, RunRow } from "./run.repo.ts";
import { runRequestView } from "./run-request.schema.ts";

export interface RunScreenshot {
  step: number;
  url: string;
  media_type: "image/png";
  /** Base64 of the PNG. */
  data: string;
}

/**
 * The run response (spec 2.1, 4.2): run_id, status, result, error, plus the fields the spec leaves
 * "not shown" (4.8), designed after the peers' run objects: timestamps, the request's url and goal,
 * how it was created, counters, usage and the live view URL. Screenshots only on request.
 */
export interface RunWire {
  run_id: string;
  status: RunStatus;
  result: unknown;
  error: RunError | null;
  url: string;
  goal: string;
  entry: RunEntry;
  batch_id: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  steps: number;
  credits_used: number;
  usage: { input_tokens: number; output_tokens: number };
  streaming_url: string | null;
  cancel_requested: boolean;
  screenshots?: RunScreenshot[];
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const liveUrl = (publicUrl: string, token: string | null) =>
  token ? `${publicUrl.replace(/\/$/, "")}/v1/live/${token}` : null;

/**
 * The live view ends with its run, after this grace (so a viewer sees the final frame). The token
 * needs no key, so it must not outlive the run: a URL that travelled further (a webhook body, a
 * log) is then worth nothing.
 */
export const LIVE_VIEW_GRACE_MS = 60_000;

/** Whether the run's live view still answers at `now`: while the run is open and for the grace after it ends. */
export const liveViewOpen = (row: Pick<RunRow, "finishedAt">, now: Date): boolean =>
  row.finishedAt === null || now.getTime() - row.finishedAt.getTime() <= LIVE_VIEW_GRACE_MS;

/** `now` decides whether `streaming_url` is still handed out (liveViewOpen). */
export function runToWire(row: RunRow, publicUrl: string, now: Date, screenshots?: RunScreenshot[]): RunWire {
  const req = runRequestView(row);
  return {
    run_id: row.id,
    status: row.status as RunStatus,
    result: row.status === "COMPLETED" ? (row.result ?? null) : null,
    error: row.error ? runErrorWithHelp(row.error, publicUrl) : null,
    url: req.url,
    goal: req.goal,
    entry: row.entry as RunEntry,
    batch_id: row.batchId,
    created_at: row.createdAt.toISOString(),
    started_at: iso(row.startedAt),
    finished_at: iso(row.finishedAt),
    steps: row.steps,
    credits_used: row.creditsUsed,
    usage: { input_tokens: row.inputTokens, output_tokens: row.outputTokens },
    streaming_url: liveViewOpen(row, now) ? liveUrl(publicUrl, row.liveToken) : null,
    cancel_requested: row.cancelRequestedAt !== null,
    ...(screenshots ? { screenshots } : {}),
  };
}

/**
 * Spec 6.1: every event has type, run_id and timestamp; the stored data adds the type's fields. A
 * COMPLETE event's error gets its help_url on `publicUrl`, as in runToWire.
 */
export function eventToWire(e: RunEventRow, publicUrl: string): Record<string, unknown> {
  const out: Record<string, unknown> = { type: e.type, run_id: e.runId, timestamp: e.createdAt.toISOString() };
  // jsonb keeps keys in its own order: put each type's fields back in the documented one.
  const keys = Object.keys(e.data).sort((a, b) => rank(a) - rank(b));
  for (const k of keys) out[k] = e.data[k];
  const error = out.error as RunError | null | undefined;
  if (error && typeof error === "object" && typeof error.code === "string") out.error = runErrorWithHelp(error, publicUrl);
  return out;
}

const FIELD_ORDER = ["streaming_url", "step", "purpose", "action", "ok", "url", "status", "result", "error"];
const rank = (k: string) => {
  const i = FIELD_ORDER.indexOf(k);
  return i === -1 ? FIELD_ORDER.length : i;
};

/** The COMPLETE event's fields (spec 6.1): status, result and, on failure, error. */
export const completeEventData = (row: RunRow): Record<string, unknown> => ({
  status: row.status,
  result: row.status === "COMPLETED" ? (row.result ?? null) : null,
  error: row.error ?? null,
});

export const WEBHOOK_EVENT_TYPES = {
  COMPLETED: "run.completed",
  FAILED: "run.failed",
  CANCELLED: "run.cancelled",
} as const;

/**
 * Spec 6.2: the webhook payload is the run in the GET /v1/runs/{id} shape, never with screenshots,
 * wrapped the Standard Webhooks way: {type, timestamp, data}. `streaming_url` is always null: the
 * body leaves the owner's hands (receivers log and forward it), and the live view needs no key.
 */
export function webhookPayload(row: RunRow, publicUrl: string): Record<string, unknown> {
  const type = WEBHOOK_EVENT_TYPES[row.status as keyof typeof WEBHOOK_EVENT_TYPES] ?? "run.updated";
  const finished = row.finishedAt ?? new Date();
  const data = { ...runToWire(row, publicUrl, finished), streaming_url: null };
  return { type, timestamp: finished.toISOString(), data };
}
