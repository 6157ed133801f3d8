import { type OutputSchema, validateAgainstOutputSchema } from "../../functions/runs/output-schema.ts";
import { runError } from "../../schema/runs.ts";
import type { AgentOutcome } from "./agent.types.ts";
import type { Action } from "./tools.ts";

type Result = Extract<AgentOutcome, { status: "COMPLETED" }>["result"];

/**
 * The model called `done`: the tool result to send back, and the run's outcome, or null when the
 * model gets one more try (the first result that does not match the output schema; `reasked`
 * says whether that try was used).
 */
export function finishRun(
  action: Extract<Action, { name: "done" }>,
  schema: OutputSchema | undefined,
  reasked: boolean,
): [{ ok: boolean; message: string }, AgentOutcome | null] {
  if (!action.success) {
    const why =
      action.message?.trim() || (typeof action.result === "string" ? action.result : "") || "The agent could not reach the goal.";
    return [
      { ok: true, message: "Finished without success." },
      { status: "FAILED", error: runError("TASK_FAILED", why) },
    ];
  }
  let result = action.result;
  if (schema) {
    // Models often send the JSON as a string: read it as JSON when the schema does not want a string.
    if (typeof result === "string" && schema.type !== "string") {
      try {
        result = JSON.parse(result);
      } catch {}
    }
    const issues = validateAgainstOutputSchema(result, schema);
    if (issues.length > 0) {
      const list = issues
        .slice(0, 10)
        .map((i) => `${i.path.length ? i.path.join(".") : "(result)"}: ${i.message}`)
        .join("; ");
      if (!reasked) {
        return [
          {
            ok: false,
            message: `The result does not match the output schema: ${list}. Call done again with a corrected result.`,
          },
          null,
        ];
      }
      return [
        { ok: false, message: `The result does not match the output schema: ${list}.` },
        { status: "FAILED", error: runError("TASK_FAILED", `The result did not match the output schema: ${list}`) },
      ];
    }
  }
  if (result === null && action.message) result = action.message;
  return [
    { ok: true, message: "Finished." },
    { status: "COMPLETED", result: result as Result },
  ];
}
