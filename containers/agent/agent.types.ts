import type { Extractor } from "../../functions/extract/types.ts";
import type { Logger } from "../../functions/lib/logger.ts";
import type { ItemSecret } from "../../functions/vault/providers/types.ts";
import type { RunCredentialItem } from "../../functions/vault/run-credentials.ts";
import type { RunError } from "../../schema/runs.ts";
import type { RunSession } from "../browser/run-session.ts";
import type { ModelProvider, Usage } from "./model/types.ts";
import type { StateScope } from "./page-state/capture.ts";
import type { PageElement } from "./page-state/types.ts";

export { DEFAULT_MAX_DURATION_SECONDS, DEFAULT_MAX_STEPS } from "../../schema/runs.ts";

export interface CaptureFlags {
  screenshots: boolean;
  html: boolean;
  elements: boolean;
  snapshots: boolean;
  recording: boolean;
}

/** What a run asks of the agent (from the validated 4.1 body). */
export interface AgentTask {
  runId: string;
  url: string;
  goal: string;
  mode: "standard" | "strict";
  maxSteps: number;
  maxDurationMs: number;
  outputSchema?: Record<string, unknown>;
  capture: CaptureFlags;
  /** Send a screenshot of the viewport with each page state (vision models). */
  vision: boolean;
  /** What a page state covers (agent-internal, not a run option): default DEFAULT_STATE_SCOPE (capture-step.ts). */
  stateScope?: StateScope;
}

/** One completed step, handed to the run's hooks to persist, emit as PROGRESS and bill. */
export interface AgentStep {
  /** 1-based. */
  step: number;
  /** The model's stated purpose of this step (the PROGRESS event's `purpose`). */
  purpose: string;
  action: { name: string; args: Record<string, unknown> };
  ok: boolean;
  /** What happened, as fed back to the model (an error text when !ok). */
  message: string;
  /** Page after the action. */
  url: string;
  title: string;
  /** Per capture_config. */
  screenshot?: Buffer;
  html?: string;
  elements?: PageElement[];
  modelMs: number;
  actionMs: number;
  captureMs: number;
  usage: Usage;
}

export interface AgentHooks {
  /** Called once, before the first action that may change the page or the site's state. */
  beforeFirstAction(): Promise<void>;
  /** Called after every step. Throwing a RunAbort ends the run with its error (e.g. INSUFFICIENT_CREDITS). */
  onStep(step: AgentStep): Promise<void>;
  /** Aborted on cancel (reason "cancelled") or shutdown/lease loss (reason "shutdown"). */
  signal: AbortSignal;
}

/**
 * The vault items a run may fill (spec 4.1 use_vault): the model is told their labels, domains and
 * field names and asks for a field by reference (fill_credential); the value is revealed at that
 * moment, typed into the page and kept out of everything the run records.
 */
export interface CredentialKit {
  items: RunCredentialItem[];
  /** One item's values, read now. Throws (CredentialUnavailableError) when it cannot be read; the message names no value. */
  reveal(itemId: string): Promise<ItemSecret>;
}

export interface AgentDeps {
  model: ModelProvider;
  session: RunSession;
  extractor: Extractor;
  logger: Logger;
  now?: () => number;
  /** Present when the run has use_vault true (possibly with no items). */
  credentials?: CredentialKit;
}

export type AgentOutcome =
  | { status: "COMPLETED"; result: Record<string, unknown> | unknown[] | string | number | boolean | null }
  | { status: "FAILED"; error: RunError }
  | { status: "CANCELLED" };

/** Thrown from a hook to end the run with `error`. */
export class RunAbort extends Error {
  override name = "RunAbort";
  readonly error: RunError;
  constructor(error: RunError) {
    super(error.message);
    this.error = error;
  }
}
