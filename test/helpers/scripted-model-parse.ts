/** Request checks and normalisation of the scripted model server, per protocol (scripted-model.ts). */
import type { Protocol, ScriptMessage, ScriptTurn } from "./scripted-model-types.ts";
import { Reject } from "./scripted-model-types.ts";

const msg = (role: ScriptMessage["role"], text: string, extra: Partial<ScriptMessage> = {}): ScriptMessage => ({
  role,
  text,
  images: [],
  toolCalls: [],
  ...extra,
});
export const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
export const bad = (message: string, param: string | null = null) => new Reject(400, "invalid_request_error", message, param);
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"];

function checkKeys(obj: Record<string, unknown>, allowed: string[], at: string, protocol: Protocol): void {
  for (const key of Object.keys(obj)) {
    if (allowed.includes(key)) continue;
    throw protocol === "openai"
      ? bad(`Unrecognized request argument supplied: ${key}`, at ? `${at}.${key}` : key)
      : bad(`${at ? `${at}.` : ""}${key}: Extra inputs are not permitted`);
  }
}

function checkNumber(v: unknown, name: string, min: number, max: number, integer: boolean): void {
  if (v === undefined) return;
  if (typeof v !== "number" || (integer && !Number.isInteger(v)) || v < min || v > max)
    throw bad(
      `Invalid '${name}': expected ${integer ? "an integer" : "a number"} between ${min} and ${max}, got ${JSON.stringify(v)}.`,
      name,
    );
}

// ---------------------------------------------------------------------------------------------
// OpenAI Chat Completions

const unanswered = (ids: string[]) =>
  `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${ids.join(", ")}`;

function openaiText(content: unknown, at: string, images: ScriptMessage["images"] | null): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw bad(`Invalid type for '${at}': expected a string or an array of content parts.`, at);
  const texts: string[] = [];
  for (const [i, part] of content.entries()) {
    const p = `${at}[${i}]`;
    if (isObj(part) && part.type === "text" && typeof part.text === "string") texts.push(part.text);
    else if (
      images &&
      isObj(part) &&
      part.type === "image_url" &&
      isObj(part.image_url) &&
      typeof part.image_url.url === "string"
    ) {
      const m = /^data:([^;,]+);base64,(.*)$/s.exec(part.image_url.url);
      if (!m?.[1] || !IMAGE_TYPES.includes(m[1]) || !BASE64.test(m[2] ?? ""))
        throw bad(`Invalid image_url in '${p}': expected a base64 data URL of a supported image type.`, p);
      images.push({ mediaType: m[1], base64: m[2] ?? "" });
    } else throw bad(`Invalid content part at '${p}': expected type 'text'${images ? " or 'image_url'" : ""}.`, p);
  }
  return texts.join("\n");
}

export function parseOpenAI(body: Record<string, unknown>): Omit<ScriptTurn, "turn" | "lastToolResults" | "latestText"> {
  const allowed =
    "model messages tools tool_choice max_tokens max_completion_tokens temperature stream top_p stop seed user parallel_tool_calls response_format";
  checkKeys(body, allowed.split(" "), "", "openai");
  if (typeof body.model !== "string" || body.model === "") throw bad("you must provide a model parameter", "model");
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    throw bad(
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      "messages",
    );
  if (body.max_tokens !== undefined && body.max_completion_tokens !== undefined)
    throw bad("Both 'max_tokens' and 'max_completion_tokens' were given; use only 'max_completion_tokens'.", "max_tokens");
  checkNumber(body.max_tokens, "max_tokens", 1, 1_000_000, true);
  checkNumber(body.max_completion_tokens, "max_completion_tokens", 1, 1_000_000, true);
  checkNumber(body.temperature, "temperature", 0, 2, false);
  const tools: ScriptTurn["tools"] = [];
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) throw bad("Invalid type for 'tools': expected an array.", "tools");
    for (const [i, t] of body.tools.entries()) {
      const fn = isObj(t) ? t.function : undefined;
      if (!isObj(t) || t.type !== "function" || !isObj(fn))
        throw bad(`Missing required parameter: 'tools[${i}].function'.`, `tools[${i}].function`);
      if (typeof fn.name !== "string" || !TOOL_NAME.test(fn.name))
        throw bad(
          `Invalid 'tools[${i}].function.name': string does not match pattern '^[a-zA-Z0-9_-]+$'.`,
          `tools[${i}].function.name`,
        );
      if (fn.parameters !== undefined && (!isObj(fn.parameters) || fn.parameters.type !== "object"))
        throw bad(
          `Invalid schema for function '${fn.name}': schema must be a JSON Schema of 'type: "object"'.`,
          `tools[${i}].function.parameters`,
        );
      tools.push({
        name: fn.name,
        description: typeof fn.description === "string" ? fn.description : "",
        parameters: fn.parameters,
      });
    }
  }
  const choice = body.tool_choice;
  if (choice !== undefined) {
    if (tools.length === 0)
      throw bad("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.", "tool_choice");
    const named = isObj(choice) && choice.type === "function" && isObj(choice.function) ? choice.function.name : undefined;
    if (!(choice === "none" || choice === "auto" || choice === "required" || typeof named === "string"))
      throw bad("Invalid value for 'tool_choice': expected 'none', 'auto', 'required' or a named function.", "tool_choice");
    if (typeof named === "string" && !tools.some((t) => t.name === named))
      throw bad(
        `Invalid value for 'tool_choice': no function named '${named}' was specified in the 'tools' parameter.`,
        "tool_choice",
      );
  }
  const messages: ScriptMessage[] = [];
  let pending: string[] = [];
  const names = new Map<string, string>();
  for (const [i, m] of body.messages.entries()) {
    const at = `messages[${i}]`;
    if (!isObj(m)) throw bad(`Invalid type for '${at}': expected an object.`, at);
    if (pending.length > 0 && m.role !== "tool") throw bad(unanswered(pending), `${at}.role`);
    const images: ScriptMessage["images"] = [];
    if (m.role === "system" || m.role === "developer") {
      messages.push({ role: "system", text: openaiText(m.content, `${at}.content`, null), images, toolCalls: [] });
    } else if (m.role === "user") {
      messages.push({ role: "user", text: openaiText(m.content, `${at}.content`, images), images, toolCalls: [] });
    } else if (m.role === "assistant") {
      const calls: ScriptMessage["toolCalls"] = [];
      if (m.tool_calls !== undefined) {
        if (!Array.isArray(m.tool_calls) || m.tool_calls.length === 0)
          throw bad(`Invalid '${at}.tool_calls': empty array.`, `${at}.tool_calls`);
        for (const [j, c] of m.tool_calls.entries()) {
          const p = `${at}.tool_calls[${j}]`;
          const fn = isObj(c) ? c.function : undefined;
          if (!isObj(c) || typeof c.id !== "string" || c.type !== "function" || !isObj(fn) || typeof fn.name !== "string")
            throw bad(`Missing required parameter: '${p}.function'.`, p);
          if (typeof fn.arguments !== "string")
            throw bad(
              `Invalid type for '${p}.function.arguments': expected a string, but got ${typeof fn.arguments} instead.`,
              `${p}.function.arguments`,
            );
          let args: unknown = fn.arguments;
          try {
            args = JSON.parse(fn.arguments);
          } catch {
            // Kept as the raw string: the real API stores whatever the model produced.
          }
          calls.push({ id: c.id, name: fn.name, arguments: args });
          names.set(c.id, fn.name);
        }
      }
      if ((m.content === null || m.content === undefined) && calls.length === 0)
        throw bad(`Invalid value for '${at}.content': expected a string, got null.`, `${at}.content`);
      const text = m.content === null || m.content === undefined ? "" : openaiText(m.content, `${at}.content`, null);
      messages.push({ role: "assistant", text, images, toolCalls: calls });
      pending = calls.map((c) => c.id);
    } else if (m.role === "tool") {
      if (typeof m.tool_call_id !== "string")
        throw bad(`Missing required parameter: '${at}.tool_call_id'.`, `${at}.tool_call_id`);
      if (!pending.includes(m.tool_call_id))
        throw bad(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `${at}.role`,
        );
      pending = pending.filter((id) => id !== m.tool_call_id);
      const text = openaiText(m.content, `${at}.content`, null);
      messages.push(msg("tool", text, { toolCallId: m.tool_call_id, toolName: names.get(m.tool_call_id) }));
    } else {
      throw bad(
        `Invalid value: '${String(m.role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
        `${at}.role`,
      );
    }
  }
  if (pending.length > 0) throw bad(unanswered(pending), "messages");
  return { protocol: "openai", model: body.model, messages, tools, raw: body };
}

// ---------------------------------------------------------------------------------------------
// Anthropic Messages

export function parseAnthropic(body: Record<string, unknown>): Omit<ScriptTurn, "turn" | "lastToolResults" | "latestText"> {
  const allowed = "model max_tokens messages system tools tool_choice temperature top_p top_k stop_sequences stream metadata";
  checkKeys(body, allowed.split(" "), "", "anthropic");
  if (typeof body.model !== "string" || body.model === "") throw bad("model: Field required");
  if (body.max_tokens === undefined) throw bad("max_tokens: Field required");
  if (typeof body.max_tokens !== "number" || !Number.isInteger(body.max_tokens) || body.max_tokens < 1)
    throw bad("max_tokens: Input should be a valid integer greater than or equal to 1");
  if (body.temperature !== undefined && (typeof body.temperature !== "number" || body.temperature < 0 || body.temperature > 1))
    throw bad("temperature: Input should be less than or equal to 1");
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw bad("messages: at least one message is required");
  const messages: ScriptMessage[] = [];
  if (typeof body.system === "string") messages.push(msg("system", body.system));
  else if (Array.isArray(body.system)) {
    const texts = body.system.map((b, i) => {
      if (!isObj(b) || b.type !== "text" || typeof b.text !== "string")
        throw bad(`system.${i}: Input should be a valid text block`);
      return b.text;
    });
    messages.push(msg("system", texts.join("\n")));
  } else if (body.system !== undefined) throw bad("system: Input should be a valid string or list of text blocks");
  const tools: ScriptTurn["tools"] = [];
  for (const [i, t] of (Array.isArray(body.tools) ? body.tools : body.tools === undefined ? [] : [null]).entries()) {
    if (!isObj(t)) throw bad(`tools.${i}: Input should be a valid dictionary`);
    checkKeys(t, ["name", "description", "input_schema", "cache_control"], `tools.${i}`, "anthropic");
    if (typeof t.name !== "string" || !TOOL_NAME.test(t.name))
      throw bad(`tools.${i}.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`);
    if (t.input_schema === undefined) throw bad(`tools.${i}.input_schema: Field required`);
    if (!isObj(t.input_schema) || t.input_schema.type !== "object")
      throw bad(`tools.${i}.input_schema.type: Input should be 'object'`);
    tools.push({ name: t.name, description: typeof t.description === "string" ? t.description : "", parameters: t.input_schema });
  }
  const choice = body.tool_choice;
  if (choice !== undefined) {
    if (!isObj(choice) || !["auto", "any", "tool", "none"].includes(String(choice.type)))
      throw bad(
        "tool_choice: Input tag found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'",
      );
    if (tools.length === 0 && choice.type !== "none")
      throw bad("tool_choice: tool_choice may only be specified while providing tools.");
    if (choice.type === "tool" && !tools.some((t) => t.name === choice.name))
      throw bad(`tool_choice.name: tool '${String(choice.name)}' not found in tools`);
  }
  let expected: string[] = [];
  const names = new Map<string, string>();
  for (const [i, m] of body.messages.entries()) {
    const at = `messages.${i}`;
    if (!isObj(m) || (m.role !== "user" && m.role !== "assistant"))
      throw bad(`${at}.role: Input should be 'user' or 'assistant'`);
    if (i === 0 && m.role !== "user") throw bad('messages: first message must use the "user" role');
    const prev = body.messages[i - 1];
    if (isObj(prev) && prev.role === m.role)
      throw bad(`messages: roles must alternate between "user" and "assistant", but found multiple "${m.role}" roles in a row`);
    const blocks: unknown[] =
      typeof m.content === "string" ? [{ type: "text", text: m.content }] : Array.isArray(m.content) ? m.content : [];
    if (blocks.length === 0)
      throw bad(`${at}: all messages must have non-empty content except for the optional final assistant message`);
    const user: ScriptMessage = { role: m.role, text: "", images: [], toolCalls: [] };
    const texts: string[] = [];
    const answered: string[] = [];
    let seenOther = false;
    for (const [j, b] of blocks.entries()) {
      const p = `${at}.content.${j}`;
      if (!isObj(b)) throw bad(`${p}: Input should be a valid dictionary`);
      if (b.type === "text") {
        if (typeof b.text !== "string" || b.text === "") throw bad("messages: text content blocks must be non-empty");
        texts.push(b.text);
        seenOther = true;
      } else if (b.type === "image" && m.role === "user") {
        const s = b.source;
        if (!isObj(s) || s.type !== "base64" || typeof s.data !== "string" || !BASE64.test(s.data))
          throw bad(`${p}.source: expected a base64 image source`);
        if (typeof s.media_type !== "string" || !IMAGE_TYPES.includes(s.media_type))
          throw bad(`${p}.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`);
        user.images.push({ mediaType: s.media_type, base64: s.data });
        seenOther = true;
      } else if (b.type === "tool_use" && m.role === "assistant") {
        if (typeof b.id !== "string" || typeof b.name !== "string") throw bad(`${p}: tool_use blocks need an id and a name`);
        if (!isObj(b.input)) throw bad(`${p}.input: Input should be a valid dictionary`);
        user.toolCalls.push({ id: b.id, name: b.name, arguments: b.input });
        names.set(b.id, b.name);
      } else if (b.type === "tool_result" && m.role === "user") {
        if (typeof b.tool_use_id !== "string") throw bad(`${p}.tool_use_id: Field required`);
        if (!expected.includes(b.tool_use_id))
          throw bad(
            `${p}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${b.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
          );
        if (seenOther) throw bad(`${at}: \`tool_result\` blocks must come first in the content, before any other blocks`);
        const text =
          typeof b.content === "string"
            ? b.content
            : Array.isArray(b.content)
              ? b.content.map((x) => (isObj(x) && typeof x.text === "string" ? x.text : "")).join("\n")
              : "";
        answered.push(b.tool_use_id);
        const extra = { toolCallId: b.tool_use_id, toolName: names.get(b.tool_use_id), isError: b.is_error === true };
        messages.push(msg("tool", text, extra));
      } else throw bad(`${p}: block type '${String(b.type)}' is not valid in a ${m.role} message`);
    }
    const missing = expected.filter((id) => !answered.includes(id));
    if (missing.length > 0)
      throw bad(
        `${at}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
      );
    expected = m.role === "assistant" ? user.toolCalls.map((c) => c.id) : [];
    user.text = texts.join("\n");
    if (m.role === "assistant" || texts.length > 0 || user.images.length > 0) messages.push(user);
  }
  if (expected.length > 0)
    throw bad(`messages: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${expected.join(", ")}`);
  return { protocol: "anthropic", model: body.model, messages, tools, raw: body };
}

// ---------------------------------------------------------------------------------------------
// Replies and the server
