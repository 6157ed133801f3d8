import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createModelProvider } from "../../../containers/agent/model/create-provider.ts";
import { MAX_MODEL_BODY_BYTES } from "../../../containers/agent/model/http.ts";
import { UsageMeter, withUsageMeter } from "../../../containers/agent/model/retry.ts";
import { ModelError, type ModelMessage, type ModelProvider, type ToolDefinition } from "../../../containers/agent/model/types.ts";
import type { Logger } from "../../../functions/lib/logger.ts";
import { type ScriptedModel, startScriptedModel } from "../../helpers/scripted-model.ts";

const NAVIGATE: ToolDefinition = {
  name: "navigate",
  description: "Open a URL in the current tab",
  parameters: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
};
const CLICK: ToolDefinition = {
  name: "click",
  description: "Click an element by its index in the page state",
  parameters: { type: "object", properties: { index: { type: "integer" } }, required: ["index"] },
};
// Base64 of a 1x1 PNG.
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

let server: ScriptedModel;
beforeAll(async () => {
  server = await startScriptedModel([]);
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  server.turns.length = 0;
});

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const at = (msg: string, fields?: Record<string, unknown>) => void lines.push(`${msg} ${JSON.stringify(fields ?? {})}`);
  return { lines, debug: at, info: at, warn: at, error: at };
}

describe.each(["openai", "anthropic"] as const)("%s provider against the scripted server", (protocol) => {
  const delays: number[] = [];
  const make = (overrides: { apiKey?: string; timeoutMs?: number; maxRetries?: number; logger?: Logger } = {}): ModelProvider => {
    const provider = createModelProvider(
      {
        provider: protocol,
        baseUrl: protocol === "openai" ? server.openaiBaseUrl : server.anthropicBaseUrl,
        model: "scripted-1",
        apiKey: overrides.apiKey ?? server.apiKey,
      },
      {
        logger: overrides.logger ?? recordingLogger(),
        timeoutMs: overrides.timeoutMs ?? 5_000,
        maxRetries: overrides.maxRetries ?? 3,
        baseDelayMs: 5,
        // Records the delay the policy chose and waits a token amount, so Retry-After is checked without sleeping.
        sleep: async (ms) => {
          delays.push(ms);
          await new Promise((r) => setTimeout(r, 1));
        },
      },
    );
    if (!provider) throw new Error("provider not created");
    return provider;
  };
  const ask = (text: string): ModelMessage[] => [
    { role: "system", text: "You drive a browser." },
    { role: "user", text },
  ];
  beforeEach(() => {
    delays.length = 0;
  });

  it("runs a tool-calling round trip, the script choosing from the state it was sent", async () => {
    server.setScript((turn) => {
      if (turn.lastToolResults.length > 0) return { text: `Finished: ${turn.lastToolResults[0]?.text}` };
      // The script must find the element in the state it was sent, as agent tests will.
      const index = /\[(\d+)\] button "Search"/.exec(turn.latestText)?.[1];
      return index
        ? { text: "Clicking search.", toolCalls: [{ name: "click", arguments: { index: Number(index) } }] }
        : { text: "no button" };
    });
    const model = make();
    const messages = ask('Page state:\n[3] link "Home"\n[7] button "Search"');
    const first = await model.complete({ messages, tools: [NAVIGATE, CLICK], toolChoice: "required", maxTokens: 256 });
    expect(first.stopReason).toBe("tool_use");
    expect(first.text).toBe("Clicking search.");
    expect(first.toolCalls).toEqual([{ id: expect.any(String), name: "click", arguments: { index: 7 } }]);
    const call = first.toolCalls[0];
    if (!call) throw new Error("no call");
    messages.push({ role: "assistant", text: first.text, toolCalls: first.toolCalls });
    messages.push({ role: "tool", callId: call.id, text: "clicked; now on /results" });
    messages.push({ role: "user", text: "Page state:\n[1] heading Results" });
    const second = await model.complete({ messages, tools: [NAVIGATE, CLICK], maxTokens: 256 });
    expect(second).toMatchObject({ text: "Finished: clicked; now on /results", toolCalls: [], stopReason: "end" });
    const turn = server.turns[1];
    expect(turn?.lastToolResults).toEqual([{ callId: call.id, name: "click", text: "clicked; now on /results", isError: false }]);
    expect(turn?.latestText).toBe("clicked; now on /results\n\nPage state:\n[1] heading Results");
    expect(server.requests.map((r) => r.status)).toEqual([200, 200]);
  });

  it("sends images in the protocol's format", async () => {
    server.setScript((turn) => ({ text: `saw ${turn.messages.flatMap((m) => m.images).length} image(s)` }));
    const res = await make().complete({
      messages: [{ role: "user", text: "What is on screen?", image: { mediaType: "image/png", base64: PNG } }],
    });
    expect(res.text).toBe("saw 1 image(s)");
    expect(server.turns[0]?.messages.at(-1)?.images).toEqual([{ mediaType: "image/png", base64: PNG }]);
    const body = server.requests[0]?.body as { messages: { content: unknown }[] };
    expect(body.messages[0]?.content).toContainEqual(
      protocol === "openai"
        ? { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } }
        : { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
    );
  });

  it("counts usage across calls", async () => {
    server.setScript([
      { text: "a", usage: { inputTokens: 120, outputTokens: 7 } },
      { text: "b", stop: "max_tokens", usage: { inputTokens: 130, outputTokens: 9 } },
    ]);
    const meter = new UsageMeter();
    const model = withUsageMeter(make(), meter);
    expect((await model.complete({ messages: ask("one") })).usage).toEqual({ inputTokens: 120, outputTokens: 7 });
    expect((await model.complete({ messages: ask("two") })).stopReason).toBe("max_tokens");
    expect(meter.snapshot()).toEqual({ inputTokens: 250, outputTokens: 16, calls: 2 });
    expect(meter.totalTokens).toBe(266);
  });

  it("waits out Retry-After on 429 and then succeeds", async () => {
    server.setScript([{ fail: "rate_limited", retryAfter: "2" }, { text: "ok" }]);
    const logger = recordingLogger();
    expect((await make({ logger }).complete({ messages: ask("hi") })).text).toBe("ok");
    expect(server.requests.map((r) => r.status)).toEqual([429, 200]);
    expect(delays).toHaveLength(1);
    expect(delays[0]).toBeGreaterThanOrEqual(2000);
    expect(delays[0]).toBeLessThan(2100);
    expect(logger.lines.join("\n")).toContain('"kind":"rate_limited"');
    expect(logger.lines.join("\n")).not.toContain(server.apiKey);
  });

  it("gives up at once when Retry-After is beyond the cap, keeping the hint", async () => {
    server.setScript([{ fail: "rate_limited", retryAfter: "600" }, { text: "never" }]);
    const err = await make()
      .complete({ messages: ask("hi") })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect(err).toMatchObject({ kind: "rate_limited", status: 429, retryAfterSeconds: 600 });
    expect(server.requests).toHaveLength(1);
  });

  it("retries 500 and overload answers with backoff, then succeeds", async () => {
    server.setScript([{ fail: "server_error" }, { fail: "overloaded" }, { text: "back" }]);
    expect((await make().complete({ messages: ask("hi") })).text).toBe("back");
    expect(server.requests.map((r) => r.status)).toEqual([500, protocol === "openai" ? 503 : 529, 200]);
    expect(delays).toHaveLength(2);
    // Exponential with jitter in [ceiling/2, ceiling]: 5 ms then 10 ms ceilings.
    expect(delays[0]).toBeGreaterThanOrEqual(2.5);
    expect(delays[0]).toBeLessThanOrEqual(5);
    expect(delays[1]).toBeGreaterThanOrEqual(5);
    expect(delays[1]).toBeLessThanOrEqual(10);
  });

  it("fails with unavailable once the retries are spent", async () => {
    server.setScript(() => ({ fail: "server_error" }));
    const err = await make({ maxRetries: 2 })
      .complete({ messages: ask("hi") })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: "unavailable", status: 500 });
    expect(server.requests).toHaveLength(3);
  });

  it("turns a hang into a timeout after the per-call timeout, and retries it", async () => {
    server.setScript(() => ({ fail: "hang" }));
    const started = Date.now();
    const err = await make({ timeoutMs: 150, maxRetries: 0 })
      .complete({ messages: ask("hi") })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect(err).toMatchObject({ kind: "timeout", message: expect.stringContaining("150 ms") });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    server.setScript([{ fail: "hang" }, { text: "second try" }]);
    expect((await make({ timeoutMs: 150, maxRetries: 1 }).complete({ messages: ask("hi") })).text).toBe("second try");
  });

  it("maps a 400 to bad_request without retrying, keeping the provider's message", async () => {
    server.setScript([{ text: "unreachable" }]);
    const badTool = { ...NAVIGATE, name: "open page" };
    const err = await make()
      .complete({ messages: ask("hi"), tools: [badTool] })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: "bad_request", status: 400, message: expect.stringMatching(/HTTP 400: .*name/) });
    expect(server.requests).toHaveLength(1);
    expect(server.turns).toHaveLength(0);
  });

  it("maps a 401 to auth without retrying and never shows the key", async () => {
    server.setScript([{ text: "unreachable" }]);
    const key = "sk-live-very-secret-key-abcdef987654";
    const logger = recordingLogger();
    const err = await make({ apiKey: key, logger })
      .complete({ messages: ask("hi") })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: "auth", status: 401 });
    const text = `${(err as Error).message} ${String((err as Error).stack)} ${JSON.stringify(err)} ${logger.lines.join("\n")}`;
    expect(text).not.toContain(key);
    expect(text).not.toContain("987654");
    expect(server.requests).toHaveLength(1);
  });

  it("reports malformed tool-call JSON as invalid_response with the raw text kept", async () => {
    server.setScript([{ fail: "malformed_tool_json", name: "click", arguments: '{"index": 7,' }]);
    const err = await make()
      .complete({ messages: ask("hi"), tools: [CLICK] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect(err).toMatchObject({ kind: "invalid_response" });
    expect((err as ModelError).raw).toContain('{"index": 7,');
    expect(server.requests).toHaveLength(1);
  });

  it("refuses an answer that never ends past MAX_MODEL_BODY_BYTES, as invalid_response, without retrying", async () => {
    server.setScript([{ fail: "endless" }]);
    const err = await make({ timeoutMs: 30_000 })
      .complete({ messages: ask("hi") })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect(err).toMatchObject({ kind: "invalid_response" });
    expect((err as ModelError).message).toContain(`answered more than ${MAX_MODEL_BODY_BYTES} bytes`);
    expect(server.requests).toHaveLength(1);
  });

  it("stops at once when the caller aborts, mid-request or mid-backoff", async () => {
    server.setScript(() => ({ fail: "hang" }));
    const controller = new AbortController();
    const pending = make().complete({ messages: ask("hi") }, controller.signal);
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });

    server.setScript(() => ({ fail: "rate_limited", retryAfter: "30" }));
    const backoff = new AbortController();
    const model = createModelProvider(
      {
        provider: protocol,
        baseUrl: protocol === "openai" ? server.openaiBaseUrl : server.anthropicBaseUrl,
        model: "m",
        apiKey: server.apiKey,
      },
      { logger: recordingLogger(), maxRetries: 3 },
    );
    const waiting = model?.complete({ messages: ask("hi") }, backoff.signal);
    await vi.waitFor(() => expect(server.requests).toHaveLength(2));
    backoff.abort();
    const err = await waiting?.catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(ModelError);
    expect(err).toMatchObject({ name: "AbortError" });
    expect(server.requests).toHaveLength(2);
  });
});

describe("network failures", () => {
  it("reports an unreachable endpoint as unavailable after retrying", async () => {
    const closed = await startScriptedModel([]);
    await closed.close();
    const logger = recordingLogger();
    const model = createModelProvider(
      { provider: "openai", baseUrl: closed.openaiBaseUrl, model: "m", apiKey: "sk-network-secret-1234567890" },
      { logger, maxRetries: 1, baseDelayMs: 1 },
    );
    const err = await model?.complete({ messages: [{ role: "user", text: "hi" }] }).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: "unavailable", message: expect.stringContaining("ECONNREFUSED") });
    expect(logger.lines).toHaveLength(1);
  });
});
