import { invalid, isRecord, postJson, type WireOptions } from "./http.ts";
import type { ModelProvider, ModelRequest, ModelResponse, StopReason, ToolCall } from "./types.ts";

/**
 * Anthropic Messages (`POST {baseUrl}/v1/messages`). The API takes the system prompt as a
 * top-level field, wants strictly alternating user/assistant turns starting with a user turn, and
 * carries tool results as `tool_result` blocks inside a user turn, placed before any other content.
 */

export { ANTHROPIC_DEFAULT_BASE_URL } from "../../../functions/config/model-settings.ts";
export const ANTHROPIC_VERSION = "2023-06-01";
/** max_tokens is required by the API; used when the caller gives none. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;
const NAME = "anthropic";

type Block = Record<string, unknown>;
interface Turn {
  role: "user" | "assistant";
  content: Block[];
}

function toTurns(req: ModelRequest): { system: string[]; turns: Turn[] } {
  const system: string[] = [];
  const turns: Turn[] = [];
  const push = (role: Turn["role"], blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  for (const m of req.messages) {
    switch (m.role) {
      case "system":
        system.push(m.text);
        break;
      case "user": {
        const blocks: Block[] = [];
        if (m.image)
          blocks.push({ type: "image", source: { type: "base64", media_type: m.image.mediaType, data: m.image.base64 } });
        if (m.text) blocks.push({ type: "text", text: m.text });
        push("user", blocks);
        break;
      }
      case "assistant":
        push("assistant", [
          ...(m.text ? [{ type: "text", text: m.text }] : []),
          ...(m.toolCalls ?? []).map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.arguments ?? {} })),
        ]);
        break;
      case "tool":
        push("user", [{ type: "tool_result", tool_use_id: m.callId, content: m.text, ...(m.isError ? { is_error: true } : {}) }]);
        break;
    }
  }
  for (const t of turns) {
    // Tool results must open the user turn they sit in.
    if (t.role === "user") t.content.sort((a, b) => Number(b.type === "tool_result") - Number(a.type === "tool_result"));
  }
  return { system, turns };
}

/** The request body for a neutral request (exported for the shape test). */
export function toAnthropicRequest(model: string, req: ModelRequest): Record<string, unknown> {
  const { system, turns } = toTurns(req);
  const body: Record<string, unknown> = { model, max_tokens: req.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS };
  if (system.length > 0) body.system = system.join("\n\n");
  body.messages = turns;
  if (req.tools && req.tools.length > 0) {
    body.tools = req.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
    const choice = req.toolChoice ?? "auto";
    body.tool_choice =
      choice === "auto" ? { type: "auto" } : choice === "required" ? { type: "any" } : { type: "tool", name: choice.name };
  }
  if (req.temperature !== undefined) body.temperature = req.temperature;
  return body;
}

const STOP: Record<string, StopReason> = {
  end_turn: "end",
  stop_sequence: "end",
  tool_use: "tool_use",
  max_tokens: "max_tokens",
};

/** The neutral response for a Messages answer (exported for tests). */
export function fromAnthropicResponse(json: unknown): ModelResponse {
  if (!isRecord(json) || !Array.isArray(json.content)) throw invalid(NAME, "the response has no content array", json);
  const text: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const block of json.content) {
    if (!isRecord(block)) throw invalid(NAME, "a content block is not an object", block);
    if (block.type === "text" && typeof block.text === "string") text.push(block.text);
    else if (block.type === "tool_use") {
      if (typeof block.id !== "string" || typeof block.name !== "string")
        throw invalid(NAME, "a tool_use block has no id or name", block);
      toolCalls.push({ id: block.id, name: block.name, arguments: block.input ?? {} });
    }
    // Other block types (thinking, server tools) carry nothing the agent acts on.
  }
  const usage = isRecord(json.usage) ? json.usage : {};
  const reason = typeof json.stop_reason === "string" ? json.stop_reason : "";
  return {
    text: text.join(""),
    toolCalls,
    stopReason: STOP[reason] ?? (toolCalls.length > 0 ? "tool_use" : "other"),
    usage: { inputTokens: num(usage.input_tokens), outputTokens: num(usage.output_tokens) },
  };
}

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** One attempt per call: retries and timeouts are the wrapper's (retry.ts). */
export function createAnthropicProvider(opts: WireOptions): ModelProvider {
  const base = opts.baseUrl.replace(/\/+$/, "");
  const headers: Record<string, string> = { "anthropic-version": ANTHROPIC_VERSION };
  if (opts.apiKey) headers["x-api-key"] = opts.apiKey;
  return {
    name: NAME,
    async complete(req, signal) {
      const json = await postJson(NAME, opts, `${base}/v1/messages`, headers, toAnthropicRequest(opts.model, req), signal);
      return fromAnthropicResponse(json);
    },
  };
}
