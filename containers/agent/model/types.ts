/**
 * The provider-neutral model interface the agent talks to. Each wire protocol (OpenAI Chat
 * Completions, Anthropic Messages) maps this shape to its own request and back, so the agent loop
 * never sees a provider's format.
 */

export interface ImageInput {
  /** Screenshots are PNG; JPEG is accepted for callers that compress. */
  mediaType: "image/png" | "image/jpeg";
  /** Base64 of the image bytes, without a `data:` prefix. */
  base64: string;
}

export interface ToolCall {
  /** The provider's id for the call; a tool result answers it by this id. */
  id: string;
  name: string;
  /** The parsed JSON arguments (an object for every well-behaved model). */
  arguments: unknown;
}

export type ModelMessage =
  | { role: "system"; text: string }
  | { role: "user"; text: string; image?: ImageInput }
  | { role: "assistant"; text: string; toolCalls?: ToolCall[] }
  | { role: "tool"; callId: string; text: string; isError?: boolean };

export interface ToolDefinition {
  name: string;
  description: string;
  /** A JSON Schema object describing the arguments (`{ type: "object", properties, required }`). */
  parameters: Record<string, unknown>;
}

export type ToolChoice = "auto" | "required" | { name: string };

export interface ModelRequest {
  messages: ModelMessage[];
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  maxTokens?: number;
  temperature?: number;
}

export type StopReason = "end" | "tool_use" | "max_tokens" | "other";

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export interface ModelResponse {
  text: string;
  toolCalls: ToolCall[];
  stopReason: StopReason;
  usage: Usage;
}

export interface ModelProvider {
  /** "openai" or "anthropic"; safe to log. */
  readonly name: string;
  complete(req: ModelRequest, signal?: AbortSignal): Promise<ModelResponse>;
}

export type ModelErrorKind = "rate_limited" | "unavailable" | "timeout" | "bad_request" | "auth" | "invalid_response";

export interface ModelErrorDetails {
  /** The HTTP status, when the provider answered. */
  status?: number;
  /** From Retry-After (or retry-after-ms) on a 429/503/529. */
  retryAfterSeconds?: number;
  /** For invalid_response: the raw text that failed to parse (e.g. tool-call arguments), to feed back. */
  raw?: string;
  cause?: unknown;
}

/**
 * The one error type a provider throws. Messages are built from the status and the provider's own
 * error message with credentials redacted; they never contain the API key.
 */
export class ModelError extends Error {
  override name = "ModelError";
  readonly kind: ModelErrorKind;
  readonly status: number | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly raw: string | undefined;

  constructor(kind: ModelErrorKind, message: string, details: ModelErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.kind = kind;
    this.status = details.status;
    this.retryAfterSeconds = details.retryAfterSeconds;
    this.raw = details.raw;
  }

  /** Whether another attempt may succeed (rate limits, outages, timeouts). */
  get retryable(): boolean {
    return this.kind === "rate_limited" || this.kind === "unavailable" || this.kind === "timeout";
  }
}
