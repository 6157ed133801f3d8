import { describe, expect, it } from "vitest";
import { fromAnthropicResponse, toAnthropicRequest } from "../../../containers/agent/model/anthropic.ts";
import { createModelProvider, missingModelSettings } from "../../../containers/agent/model/create-provider.ts";
import { parseRetryAfter, redact } from "../../../containers/agent/model/http.ts";
import { fromOpenAIResponse, toOpenAIRequest } from "../../../containers/agent/model/openai.ts";
import { retryDelayMs } from "../../../containers/agent/model/retry.ts";
import { ModelError, type ModelRequest } from "../../../containers/agent/model/types.ts";
import { silentLogger } from "../../../functions/lib/logger.ts";

/** One neutral request exercising every message kind; the expected bodies below are written by hand from the providers' docs. */
const REQUEST: ModelRequest = {
  messages: [
    { role: "system", text: "You drive a browser." },
    { role: "user", text: "Find the price.", image: { mediaType: "image/png", base64: "AAAA" } },
    {
      role: "assistant",
      text: "Opening the page.",
      toolCalls: [
        { id: "c1", name: "navigate", arguments: { url: "https://example.com" } },
        { id: "c2", name: "scroll", arguments: { direction: "down" } },
      ],
    },
    { role: "tool", callId: "c1", text: "loaded" },
    { role: "tool", callId: "c2", text: "no scrollable area", isError: true },
    { role: "user", text: "Page state: [1] $42" },
  ],
  tools: [
    { name: "navigate", description: "Open a URL", parameters: { type: "object", properties: { url: { type: "string" } } } },
  ],
  toolChoice: { name: "navigate" },
  maxTokens: 512,
  temperature: 0,
};

describe("request bodies for the same neutral request", () => {
  it("OpenAI Chat Completions", () => {
    expect(toOpenAIRequest("gpt-test", REQUEST)).toEqual({
      model: "gpt-test",
      messages: [
        { role: "system", content: "You drive a browser." },
        {
          role: "user",
          content: [
            { type: "text", text: "Find the price." },
            { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
          ],
        },
        {
          role: "assistant",
          content: "Opening the page.",
          tool_calls: [
            { id: "c1", type: "function", function: { name: "navigate", arguments: '{"url":"https://example.com"}' } },
            { id: "c2", type: "function", function: { name: "scroll", arguments: '{"direction":"down"}' } },
          ],
        },
        { role: "tool", tool_call_id: "c1", content: "loaded" },
        { role: "tool", tool_call_id: "c2", content: "Error: no scrollable area" },
        { role: "user", content: "Page state: [1] $42" },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "navigate",
            description: "Open a URL",
            parameters: { type: "object", properties: { url: { type: "string" } } },
          },
        },
      ],
      tool_choice: { type: "function", function: { name: "navigate" } },
      max_tokens: 512,
      temperature: 0,
    });
    expect(toOpenAIRequest("o-test", { ...REQUEST, toolChoice: "required" }, "max_completion_tokens")).toMatchObject({
      tool_choice: "required",
      max_completion_tokens: 512,
    });
  });

  it("Anthropic Messages: system on top, tool results first in one merged user turn", () => {
    expect(toAnthropicRequest("claude-test", REQUEST)).toEqual({
      model: "claude-test",
      max_tokens: 512,
      system: "You drive a browser.",
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
            { type: "text", text: "Find the price." },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Opening the page." },
            { type: "tool_use", id: "c1", name: "navigate", input: { url: "https://example.com" } },
            { type: "tool_use", id: "c2", name: "scroll", input: { direction: "down" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "c1", content: "loaded" },
            { type: "tool_result", tool_use_id: "c2", content: "no scrollable area", is_error: true },
            { type: "text", text: "Page state: [1] $42" },
          ],
        },
      ],
      tools: [
        {
          name: "navigate",
          description: "Open a URL",
          input_schema: { type: "object", properties: { url: { type: "string" } } },
        },
      ],
      tool_choice: { type: "tool", name: "navigate" },
      temperature: 0,
    });
    const plain = toAnthropicRequest("claude-test", {
      messages: [
        { role: "user", text: "a" },
        { role: "user", text: "b" },
      ],
      tools: REQUEST.tools,
      toolChoice: "required",
    });
    expect(plain).toEqual({
      model: "claude-test",
      max_tokens: 4096,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "a" },
            { type: "text", text: "b" },
          ],
        },
      ],
      tools: [{ name: "navigate", description: "Open a URL", input_schema: REQUEST.tools?.[0]?.parameters }],
      tool_choice: { type: "any" },
    });
  });

  it("leaves tools and tool_choice out when there are no tools", () => {
    const req: ModelRequest = { messages: [{ role: "user", text: "hi" }], toolChoice: "required" };
    expect(toOpenAIRequest("m", req)).toEqual({ model: "m", messages: [{ role: "user", content: "hi" }] });
    expect(toAnthropicRequest("m", req)).toEqual({
      model: "m",
      max_tokens: 4096,
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    });
  });
});

describe("responses", () => {
  it("parses OpenAI answers, tolerating compatible servers' quirks", () => {
    const res = fromOpenAIResponse({
      choices: [
        {
          message: { content: null, tool_calls: [{ type: "function", function: { name: "click", arguments: '{"index":3}' } }] },
          finish_reason: "stop",
        },
      ],
    });
    expect(res).toEqual({
      text: "",
      toolCalls: [{ id: "call_0", name: "click", arguments: { index: 3 } }],
      stopReason: "tool_use",
      usage: { inputTokens: 0, outputTokens: 0 },
    });
    expect(() => fromOpenAIResponse({ error: "nope" })).toThrow(ModelError);
  });

  it("parses Anthropic answers, ignoring block types the agent does not use", () => {
    const res = fromAnthropicResponse({
      content: [
        { type: "thinking", thinking: "hm" },
        { type: "text", text: "Hi" },
        { type: "tool_use", id: "t1", name: "done", input: { result: 1 } },
      ],
      stop_reason: "tool_use",
      usage: { input_tokens: 5, output_tokens: 2 },
    });
    expect(res).toEqual({
      text: "Hi",
      toolCalls: [{ id: "t1", name: "done", arguments: { result: 1 } }],
      stopReason: "tool_use",
      usage: { inputTokens: 5, outputTokens: 2 },
    });
    expect(() => fromAnthropicResponse({ type: "message" })).toThrow(expect.objectContaining({ kind: "invalid_response" }));
  });
});

describe("helpers", () => {
  it("redacts keys, including the masked form OpenAI echoes", () => {
    expect(redact("Incorrect API key provided: sk-li********7654. See docs.", "sk-live-1234567654")).toBe(
      "Incorrect API key provided: <redacted>. See docs.",
    );
    expect(redact("bad key abc123", "abc123")).toBe("bad key <redacted>");
  });

  it("reads Retry-After as seconds, a date or retry-after-ms", () => {
    expect(parseRetryAfter(new Headers({ "retry-after": "3" }))).toBe(3);
    expect(parseRetryAfter(new Headers({ "retry-after-ms": "250", "retry-after": "3" }))).toBe(0.25);
    expect(
      parseRetryAfter(new Headers({ "retry-after": "Sat, 21 Nov 2026 08:00:10 GMT" }), Date.parse("2026-11-21T08:00:00Z")),
    ).toBe(10);
    expect(parseRetryAfter(new Headers({ "retry-after": "soon" }))).toBeUndefined();
  });

  it("backs off exponentially with a cap, and never retries bad_request or auth", () => {
    const opts = { logger: silentLogger, baseDelayMs: 1000, maxDelayMs: 5000 };
    const unavailable = new ModelError("unavailable", "x");
    expect([0, 1, 2, 5].map((n) => retryDelayMs(unavailable, n, opts, () => 1))).toEqual([1000, 2000, 4000, 5000]);
    expect(retryDelayMs(unavailable, 0, opts, () => 0)).toBe(500);
    expect(retryDelayMs(new ModelError("bad_request", "x"), 0, opts)).toBeNull();
    expect(retryDelayMs(new ModelError("auth", "x"), 0, opts)).toBeNull();
    expect(retryDelayMs(new ModelError("invalid_response", "x"), 0, opts)).toBeNull();
  });

  it("creates no provider until the model is configured, naming what is missing", () => {
    expect(createModelProvider(null, { logger: silentLogger })).toBeNull();
    expect(missingModelSettings(null)).toEqual(["OSPREY_LLM_PROVIDER", "OSPREY_LLM_MODEL", "OSPREY_LLM_API_KEY"]);
    const openai = { provider: "openai" as const, baseUrl: null, model: "gpt-test", apiKey: null };
    expect(missingModelSettings(openai)).toEqual(["OSPREY_LLM_API_KEY"]);
    expect(createModelProvider(openai, { logger: silentLogger })).toBeNull();
    // A local server (Ollama, vLLM) needs no key, but always a model name.
    const local = { provider: "openai" as const, baseUrl: "http://127.0.0.1:11434/v1", model: null, apiKey: null };
    expect(missingModelSettings(local)).toEqual(["OSPREY_LLM_MODEL"]);
    expect(createModelProvider({ ...local, model: "llama3" }, { logger: silentLogger })?.name).toBe("openai");
    expect(
      createModelProvider({ provider: "anthropic", baseUrl: null, model: "c", apiKey: "k" }, { logger: silentLogger })?.name,
    ).toBe("anthropic");
  });
});
