import { invalid, isRecord, parseArguments, postJson, type WireOptions } from "./http.ts";
import type { ModelProvider, ModelRequest, ModelResponse, StopReason, ToolCall } from "./types.ts";

/**
 * OpenAI Chat Completions (`POST {baseUrl}/chat/completions`), also spoken by vLLM, Ollama,
 * llama.cpp's server and OpenRouter. Only the documented core of the protocol is used so that the
 * compatible servers accept it too.
 */

export { OPENAI_DEFAULT_BASE_URL } from "../../../functions/config/model-settings.ts";

const NAME = "openai";

export interface OpenAIOptions extends WireOptions {
  /**
   * api.openai.com's newer models reject `max_tokens` and want `max_completion_tokens`; the
   * compatible servers only reliably know `max_tokens`. Defaults by host.
   */
  maxTokensField?: "max_tokens" | "max_completion_tokens";
}

type WireMessage = Record<string, unknown>;

function toWireMessages(req: ModelRequest): WireMessage[] {
  return req.messages.map((m): WireMessage => {
    switch (m.role) {
      case "system":
        return { role: "system", content: m.text };
      case "user":
        if (!m.image) return { role: "user", content: m.text };
        return {
          role: "user",
          content: [
            ...(m.text ? [{ type: "text", text: m.text }] : []),
            { type: "image_url", image_url: { url: `data:${m.image.mediaType};base64,${m.image.base64}` } },
          ],
        };
      case "assistant": {
        const calls = m.toolCalls ?? [];
        if (calls.length === 0) return { role: "assistant", content: m.text };
        return {
          role: "assistant",
          content: m.text === "" ? null : m.text,
          tool_calls: calls.map((c) => ({
            id: c.id,
            type: "function",
            function: { name: c.name, arguments: JSON.stringify(c.arguments ?? {}) },
          })),
        };
      }
      case "tool":
        // The protocol has no error flag on tool messages; the text says it.
        return { role: "tool", tool_call_id: m.callId, content: m.isError ? `Error: ${m.text}` : m.text };
    }
    return m satisfies never;
  });
}

/** The request body for a neutral request (exported for the shape test). */
export function toOpenAIRequest(
  model: string,
  req: ModelRequest,
  maxTokensField: "max_tokens" | "max_completion_tokens" = "max_tokens",
): Record<string, unknown> {
  const body: Record<string, unknown> = { model, messages: toWireMessages(req) };
  if (req.tools && req.tools.length > 0) {
    body.tools = req.tools.map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
    const choice = req.toolChoice ?? "auto";
    body.tool_choice = typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } };
  }
  if (req.maxTokens !== undefined) body[maxTokensField] = req.maxTokens;
  if (req.temperature !== undefined) body.temperature = req.temperature;
  return body;
}

const STOP: Record<string, StopReason> = { stop: "end", tool_calls: "tool_use", function_call: "tool_use", length: "max_tokens" };

/** The neutral response for a Chat Completions answer (exported for tests). */
export function fromOpenAIResponse(json: unknown): ModelResponse {
  const choice = isRecord(json) && Array.isArray(json.choices) ? json.choices[0] : undefined;
  const message = isRecord(choice) ? choice.message : undefined;
  if (!isRecord(json) || !isRecord(choice) || !isRecord(message))
    throw invalid(NAME, "the response has no choices[0].message", json);
  const toolCalls: ToolCall[] = [];
  for (const [i, call] of (Array.isArray(message.tool_calls) ? message.tool_calls : []).entries()) {
    const fn = isRecord(call) ? call.function : undefined;
    if (!isRecord(call) || !isRecord(fn) || typeof fn.name !== "string")
      throw invalid(NAME, "a tool call has no function name", call);
    const raw = typeof fn.arguments === "string" ? fn.arguments : JSON.stringify(fn.arguments ?? {});
    // Some compatible servers omit ids; the tool result still needs one to answer.
    const id = typeof call.id === "string" && call.id !== "" ? call.id : `call_${i}`;
    toolCalls.push({ id, name: fn.name, arguments: parseArguments(NAME, fn.name, raw) });
  }
  const usage = isRecord(json.usage) ? json.usage : {};
  const reason = typeof choice.finish_reason === "string" ? choice.finish_reason : "";
  return {
    text: typeof message.content === "string" ? message.content : "",
    toolCalls,
    // Several compatible servers say "stop" even when they return tool calls.
    stopReason: toolCalls.length > 0 ? "tool_use" : (STOP[reason] ?? "other"),
    usage: { inputTokens: num(usage.prompt_tokens), outputTokens: num(usage.completion_tokens) },
  };
}

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** One attempt per call: retries and timeouts are the wrapper's (retry.ts). */
export function createOpenAIProvider(opts: OpenAIOptions): ModelProvider {
  const base = opts.baseUrl.replace(/\/+$/, "");
  const field = opts.maxTokensField ?? (new URL(base).hostname === "api.openai.com" ? "max_completion_tokens" : "max_tokens");
  const headers: Record<string, string> = opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {};
  return {
    name: NAME,
    async complete(req, signal) {
      const json = await postJson(
        NAME,
        opts,
        `${base}/chat/completions`,
        headers,
        toOpenAIRequest(opts.model, req, field),
        signal,
      );
      return fromOpenAIResponse(json);
    },
  };
}
