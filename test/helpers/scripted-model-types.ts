/** Types of the scripted model server (scripted-model.ts). */
import type { IncomingMessage } from "node:http";

export type Protocol = "openai" | "anthropic";

export interface ScriptMessage {
  role: "system" | "user" | "assistant" | "tool";
  text: string;
  images: { mediaType: string; base64: string }[];
  toolCalls: { id: string; name: string; arguments: unknown }[];
  /** For tool messages: the call answered, its tool's name, and whether it reported an error. */
  toolCallId?: string;
  toolName?: string;
  isError?: boolean;
}

export interface ScriptTurn {
  protocol: Protocol;
  /** 1 for the first valid request the server answers, and so on. */
  turn: number;
  model: string;
  messages: ScriptMessage[];
  tools: { name: string; description: string; parameters: unknown }[];
  /** Tool results sent since the last assistant message. */
  lastToolResults: { callId: string; name: string | undefined; text: string; isError: boolean }[];
  /** The user and tool text sent since the last assistant message, joined by blank lines. */
  latestText: string;
  raw: Record<string, unknown>;
}

export type ScriptedReply =
  | {
      text?: string;
      toolCalls?: { name: string; arguments: unknown; id?: string }[];
      stop?: "end" | "max_tokens";
      usage?: { inputTokens?: number; outputTokens?: number };
    }
  | { fail: "rate_limited"; retryAfter?: string }
  | { fail: "server_error" }
  /** Anthropic answers 529 overloaded_error; OpenAI 503. */
  | { fail: "overloaded" }
  /** Never answers (until the server closes). */
  | { fail: "hang" }
  /** 200 whose JSON body never ends (written until the client goes). */
  | { fail: "endless" }
  /** OpenAI: a tool call whose arguments string is broken JSON; Anthropic: a truncated body. */
  | { fail: "malformed_tool_json"; name?: string; arguments?: string }
  | { fail: "status"; status: number; body: unknown };

export type Script = ((turn: ScriptTurn) => ScriptedReply | Promise<ScriptedReply>) | ScriptedReply[];

export interface RecordedRequest {
  protocol: Protocol | null;
  path: string;
  headers: IncomingMessage["headers"];
  /** The parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
  status: number;
}

export interface ScriptedModel {
  url: string;
  /** OSPREY_LLM_BASE_URL for provider openai (includes /v1, like https://api.openai.com/v1). */
  openaiBaseUrl: string;
  /** OSPREY_LLM_BASE_URL for provider anthropic. */
  anthropicBaseUrl: string;
  apiKey: string;
  requests: RecordedRequest[];
  /** Valid requests normalised, in order. */
  turns: ScriptTurn[];
  setScript(script: Script): void;
  close(): Promise<void>;
}

export class Reject extends Error {
  readonly status: number;
  readonly type: string;
  readonly param: string | null;
  readonly code: string | null;
  constructor(status: number, type: string, message: string, param: string | null = null, code: string | null = null) {
    super(message);
    this.status = status;
    this.type = type;
    this.param = param;
    this.code = code;
  }
}
