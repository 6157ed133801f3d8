import { runAgent } from "../../../containers/agent/agent.ts";
import type { AgentHooks, AgentOutcome, AgentStep, AgentTask } from "../../../containers/agent/agent.types.ts";
import { createModelProvider } from "../../../containers/agent/model/create-provider.ts";
import type { ModelProvider } from "../../../containers/agent/model/types.ts";
import type { RunSession } from "../../../containers/browser/run-session.ts";
import { inlineExtractor } from "../../../functions/extract/pool.ts";
import type { Logger } from "../../../functions/lib/logger.ts";
import type { Protocol, ScriptedModel, ScriptedReply, ScriptTurn } from "../../helpers/scripted-model.ts";

/** Shared pieces of the agent-loop tests: providers against the scripted server, tasks, and a run with recorded hooks. */

export const quietLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

export function provider(
  server: ScriptedModel,
  protocol: Protocol,
  opts: { timeoutMs?: number; maxRetries?: number } = {},
): ModelProvider {
  const p = createModelProvider(
    {
      provider: protocol,
      baseUrl: protocol === "openai" ? server.openaiBaseUrl : server.anthropicBaseUrl,
      model: "scripted-1",
      apiKey: server.apiKey,
    },
    {
      logger: quietLogger,
      timeoutMs: opts.timeoutMs ?? 20_000,
      maxRetries: opts.maxRetries ?? 2,
      baseDelayMs: 5,
      maxDelayMs: 20,
    },
  );
  if (!p) throw new Error("provider not created");
  return p;
}

export function task(url: string, goal: string, overrides: Partial<AgentTask> = {}): AgentTask {
  return {
    runId: "run_test",
    url,
    goal,
    mode: "standard",
    maxSteps: 15,
    maxDurationMs: 60_000,
    capture: { screenshots: false, html: false, elements: false, snapshots: false, recording: false },
    vision: false,
    ...overrides,
  };
}

/** A tool call reply. */
export const call = (name: string, args: Record<string, unknown>): ScriptedReply => ({
  toolCalls: [{ name, arguments: { purpose: `${name} for the test`, ...args } }],
  usage: { inputTokens: 100, outputTokens: 10 },
});

/** The page state text of the turn (the newest user message holding one). */
export function stateText(turn: ScriptTurn): string {
  const m = turn.messages.findLast((x) => x.role === "user" && x.text.includes("Current page state:"));
  if (!m) throw new Error("no page state in the request");
  return m.text;
}

/** The index of the element the regex (with one capture group for the number) finds in the current page state. */
export function idx(turn: ScriptTurn, re: RegExp): number {
  const text = stateText(turn);
  const m = re.exec(text);
  if (!m?.[1]) throw new Error(`no match for ${re} in page state:\n${text}`);
  return Number(m[1]);
}

export type ScriptStep = (turn: ScriptTurn) => ScriptedReply;

/**
 * A script that plays `steps` in order, one per model request. Errors inside a step are recorded
 * (and answered with a 400 so the run ends) to make a broken script visible in the assertion.
 */
export function sequence(steps: ScriptStep[], errors: string[]): (turn: ScriptTurn) => ScriptedReply {
  let i = 0;
  return (turn) => {
    const step = steps[i++];
    if (!step) {
      errors.push(`no scripted step ${i}`);
      return { fail: "status", status: 400, body: { error: { message: "script ended", type: "invalid_request_error" } } };
    }
    try {
      return step(turn);
    } catch (err) {
      errors.push(String(err));
      return { fail: "status", status: 400, body: { error: { message: "script error", type: "invalid_request_error" } } };
    }
  };
}

export interface Recorded {
  outcome: AgentOutcome;
  steps: AgentStep[];
  /** Order of hook calls: "before" and "step:<action>". */
  events: string[];
}

export async function run(
  t: AgentTask,
  deps: { model: ModelProvider; session: RunSession },
  hooks: { signal?: AbortSignal; onStep?: (s: AgentStep) => Promise<void> } = {},
): Promise<Recorded> {
  const steps: AgentStep[] = [];
  const events: string[] = [];
  const agentHooks: AgentHooks = {
    signal: hooks.signal ?? new AbortController().signal,
    beforeFirstAction: async () => void events.push("before"),
    onStep: async (s) => {
      steps.push(s);
      events.push(`step:${s.action.name}`);
      await hooks.onStep?.(s);
    },
  };
  const outcome = await runAgent(t, { ...deps, extractor: inlineExtractor, logger: quietLogger }, agentHooks);
  return { outcome, steps, events };
}
