import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScriptedModel, startScriptedModel } from "../../helpers/scripted-model.ts";

/** The scripted server must refuse what the real APIs refuse, or provider tests would prove little. */

let server: ScriptedModel;
beforeAll(async () => {
  server = await startScriptedModel(() => ({ text: "ok" }));
});
afterAll(() => server.close());

const openai = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.openaiBaseUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${server.apiKey}`, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
const anthropic = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.anthropicBaseUrl}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": server.apiKey, "anthropic-version": "2023-06-01", ...headers },
    body: JSON.stringify(body),
  });

const user = { role: "user", content: "hi" };
const call = { id: "call_1", type: "function", function: { name: "click", arguments: "{}" } };
const tool = { type: "function", function: { name: "click", parameters: { type: "object", properties: {} } } };

describe("OpenAI Chat Completions validation", () => {
  it.each([
    ["no model", { messages: [user] }, /model parameter/],
    ["no messages", { model: "m", messages: [] }, /empty array/],
    ["an unknown field", { model: "m", messages: [user], foo: 1 }, /Unrecognized request argument supplied: foo/],
    ["a bad role", { model: "m", messages: [{ role: "bot", content: "x" }] }, /Supported values are/],
    [
      "a tool message with no call before it",
      { model: "m", messages: [user, { role: "tool", tool_call_id: "x", content: "r" }] },
      /preceeding message with 'tool_calls'/,
    ],
    [
      "an unanswered tool call",
      { model: "m", messages: [user, { role: "assistant", content: null, tool_calls: [call] }] },
      /did not have response messages: call_1/,
    ],
    [
      "object arguments",
      {
        model: "m",
        messages: [user, { role: "assistant", tool_calls: [{ ...call, function: { name: "click", arguments: {} } }] }],
      },
      /expected a string/,
    ],
    ["tool_choice without tools", { model: "m", messages: [user], tool_choice: "required" }, /only allowed when 'tools'/],
    [
      "tool_choice naming an unknown tool",
      { model: "m", messages: [user], tools: [tool], tool_choice: { type: "function", function: { name: "nope" } } },
      /no function named 'nope'/,
    ],
    ["both token limits", { model: "m", messages: [user], max_tokens: 5, max_completion_tokens: 5 }, /Both/],
    ["a temperature above 2", { model: "m", messages: [user], temperature: 3 }, /temperature/],
    [
      "an image that is not a data URL",
      {
        model: "m",
        messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "data:text/plain;base64,AA==" } }] }],
      },
      /image_url/,
    ],
    ["invalid JSON", "{not json", /could not parse the JSON body/],
  ])("refuses %s with a 400 in OpenAI's error format", async (_name, body, message) => {
    const res = await openai(body);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: {
        message: expect.stringMatching(message),
        type: "invalid_request_error",
        param: expect.toSatisfy((p) => p === null || typeof p === "string"),
        code: null,
      },
    });
  });

  it("refuses a missing or wrong key with 401, masking the key it echoes", async () => {
    const missing = await openai({ model: "m", messages: [user] }, { authorization: "" });
    expect(missing.status).toBe(401);
    const wrong = await openai({ model: "m", messages: [user] }, { authorization: "Bearer sk-wrong-key-0000001111" });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({
      error: {
        message: expect.stringMatching(/^Incorrect API key provided: sk-wr\*+1111\./),
        type: "invalid_request_error",
        param: null,
        code: "invalid_api_key",
      },
    });
  });

  it("answers a valid request with a chat.completion and records it", async () => {
    const res = await openai({
      model: "m",
      messages: [{ role: "developer", content: "be brief" }, user],
      tools: [tool],
      tool_choice: "auto",
      max_tokens: 10,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      object: "chat.completion",
      choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
      usage: { prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number), total_tokens: expect.any(Number) },
    });
    expect(server.requests.at(-1)).toMatchObject({ protocol: "openai", status: 200, body: { model: "m" } });
    expect(server.turns.at(-1)?.messages.map((m) => m.role)).toEqual(["system", "user"]);
  });
});

describe("Anthropic Messages validation", () => {
  const base = { model: "c", max_tokens: 100 };
  const toolUse = { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "click", input: {} }] };
  it.each([
    ["no max_tokens", { model: "c", messages: [user] }, /max_tokens: Field required/],
    ["an unknown field", { ...base, messages: [user], foo: 1 }, /foo: Extra inputs are not permitted/],
    [
      "a system role in messages",
      { ...base, messages: [{ role: "system", content: "x" }] },
      /Input should be 'user' or 'assistant'/,
    ],
    [
      "an assistant first",
      { ...base, messages: [{ role: "assistant", content: "x" }] },
      /first message must use the "user" role/,
    ],
    ["two user turns in a row", { ...base, messages: [user, user] }, /multiple "user" roles in a row/],
    [
      "an empty text block",
      { ...base, messages: [{ role: "user", content: [{ type: "text", text: "" }] }] },
      /must be non-empty/,
    ],
    [
      "an unanswered tool_use",
      { ...base, messages: [user, toolUse, user] },
      /without `tool_result` blocks immediately after: toolu_1/,
    ],
    [
      "a tool_result after text",
      {
        ...base,
        messages: [
          user,
          toolUse,
          {
            role: "user",
            content: [
              { type: "text", text: "x" },
              { type: "tool_result", tool_use_id: "toolu_1", content: "r" },
            ],
          },
        ],
      },
      /must come first/,
    ],
    [
      "a tool_result for an unknown id",
      { ...base, messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_9", content: "r" }] }] },
      /unexpected `tool_use_id`/,
    ],
    ["a tool without input_schema", { ...base, messages: [user], tools: [{ name: "click" }] }, /input_schema: Field required/],
    [
      "an OpenAI-style tool_choice",
      { ...base, messages: [user], tools: [{ name: "click", input_schema: { type: "object" } }], tool_choice: "auto" },
      /expected tags/,
    ],
    ["a temperature above 1", { ...base, messages: [user], temperature: 1.5 }, /temperature/],
    [
      "a PDF as an image",
      {
        ...base,
        messages: [
          { role: "user", content: [{ type: "image", source: { type: "base64", media_type: "application/pdf", data: "AA==" } }] },
        ],
      },
      /media_type/,
    ],
  ])("refuses %s with a 400 in Anthropic's error format", async (_name, body, message) => {
    const res = await anthropic(body);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message: expect.stringMatching(message) },
    });
  });

  it("requires the version header and the key", async () => {
    const noVersion = await anthropic({ ...base, messages: [user] }, { "anthropic-version": "" });
    expect(noVersion.status).toBe(400);
    expect(await noVersion.json()).toMatchObject({ error: { message: "anthropic-version: header is required" } });
    const wrong = await anthropic({ ...base, messages: [user] }, { "x-api-key": "nope" });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } });
  });

  it("answers a valid request with a message", async () => {
    const res = await anthropic({ ...base, system: [{ type: "text", text: "be brief" }], messages: [user] });
    expect(await res.json()).toMatchObject({
      type: "message",
      role: "assistant",
      content: [{ type: "text", text: "ok" }],
      stop_reason: "end_turn",
      usage: { input_tokens: expect.any(Number) },
    });
  });
});

describe("scripting", () => {
  it("answers 404 for other paths and a clear 400 when a reply list runs out", async () => {
    expect((await fetch(`${server.url}/v1/embeddings`, { method: "POST", body: "{}" })).status).toBe(404);
    const once = await startScriptedModel([{ text: "only" }]);
    try {
      const send = () =>
        fetch(`${once.anthropicBaseUrl}/v1/messages`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": once.apiKey, "anthropic-version": "2023-06-01" },
          body: JSON.stringify({ model: "c", max_tokens: 5, messages: [user] }),
        });
      expect((await send()).status).toBe(200);
      const res = await send();
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: { message: expect.stringContaining("no reply for request 2") } });
    } finally {
      await once.close();
    }
  });
});
