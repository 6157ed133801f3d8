import type { RunRow } from "../../functions/runs/run.repo.ts";
import type { RunRequest } from "../../functions/runs/run-request.schema.ts";
import { DEFAULT_MAX_DURATION_SECONDS, DEFAULT_MAX_STEPS } from "../../schema/runs.ts";
import type { AgentTask } from "../agent/agent.types.ts";

/** The agent's task from a stored run and its request, read back with storedRunRequest. */
export function taskOf(row: RunRow, req: RunRequest, opts: { vision: boolean }): AgentTask {
  const capture = req.capture_config ?? {};
  return {
    runId: row.id,
    url: req.url,
    goal: req.goal,
    mode: req.agent_config?.mode === "strict" ? "strict" : "standard",
    maxSteps: req.agent_config?.max_steps ?? DEFAULT_MAX_STEPS,
    maxDurationMs: (req.agent_config?.max_duration_seconds ?? DEFAULT_MAX_DURATION_SECONDS) * 1000,
    outputSchema: req.output_schema,
    capture: {
      // A recording is replayed from per-step screenshots; snapshots are per-step HTML.
      screenshots: capture.screenshots === true || capture.recording === true,
      html: capture.html === true || capture.snapshots === true,
      elements: capture.elements === true,
      snapshots: capture.snapshots === true,
      recording: capture.recording === true,
    },
    vision: opts.vision,
  };
}
