import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { writeEndlessJson } from "./endless.ts";
/**
 * A scripted model server on 127.0.0.1 speaking both wire protocols on one port: OpenAI Chat
 * Completions (`/v1/chat/completions`) and Anthropic Messages (`/v1/messages`). Requests are
 * checked as strictly as the real APIs check them and refused with their error bodies; valid ones
 * are normalised into a `ScriptTurn` and answered by the test's script, which can read the latest
 * user and tool text (the page state an agent sends) to decide what to do.
 */
import { bad, isObj, parseAnthropic, parseOpenAI } from "./scripted-model-parse.ts";
import type { Protocol, RecordedRequest, Script, ScriptedModel, ScriptedReply, ScriptTurn } from "./scripted-model-types.ts";
import { Reject } from "./scripted-model-types.ts";

export type * from "./scripted-model-types.ts";

function errorBody(protocol: Protocol, r: Reject): unknown {
  return protocol === "openai"
    ? { error: { message: r.message, type: r.type, param: r.param, code: r.code } }
    : { type: "error", error: { type: r.type, message: r.message } };
}

const mask = (key: string) => `${key.slice(0, 5)}${"*".repeat(Math.max(0, key.length - 9))}${key.slice(-4)}`;

function checkAuth(protocol: Protocol, headers: IncomingMessage["headers"], apiKey: string): void {
  if (protocol === "openai") {
    const auth = headers.authorization;
    if (!auth)
      throw new Reject(
        401,
        "invalid_request_error",
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
      );
    if (auth !== `Bearer ${apiKey}`) {
      const given = auth.replace(/^Bearer\s+/i, "");
      throw new Reject(
        401,
        "invalid_request_error",
        `Incorrect API key provided: ${mask(given)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
        null,
        "invalid_api_key",
      );
    }
    return;
  }
  if (!headers["x-api-key"]) throw new Reject(401, "authentication_error", "x-api-key header is required");
  if (headers["x-api-key"] !== apiKey) throw new Reject(401, "authentication_error", "invalid x-api-key");
  if (!headers["anthropic-version"]) throw bad("anthropic-version: header is required");
}

function withContext(turn: Omit<ScriptTurn, "turn" | "lastToolResults" | "latestText">, n: number): ScriptTurn {
  const lastAssistant = turn.messages.findLastIndex((m) => m.role === "assistant");
  const recent = turn.messages.slice(lastAssistant + 1).filter((m) => m.role === "user" || m.role === "tool");
  return {
    ...turn,
    turn: n,
    lastToolResults: recent
      .filter((m) => m.role === "tool")
      .map((m) => ({ callId: m.toolCallId ?? "", name: m.toolName, text: m.text, isError: m.isError === true })),
    latestText: recent.map((m) => m.text).join("\n\n"),
  };
}

let ids = 0;
const nextId = (prefix: string) => `${prefix}${String(++ids).padStart(6, "0")}`;

type Sent = { status: number; headers?: Record<string, string>; body: string } | "hang" | "endless";

function render(protocol: Protocol, reply: ScriptedReply, rawLength: number): Sent {
  const json = (status: number, body: unknown, headers?: Record<string, string>): Sent => ({
    status,
    headers,
    body: JSON.stringify(body),
  });
  const fail = (status: number, openaiType: string, anthropicType: string, message: string, headers?: Record<string, string>) =>
    json(status, errorBody(protocol, new Reject(status, protocol === "openai" ? openaiType : anthropicType, message)), headers);
  const retryAfter = (v: string | undefined): Record<string, string> => (v === undefined ? {} : { "retry-after": v });
  if ("fail" in reply) {
    switch (reply.fail) {
      case "hang":
        return "hang";
      case "endless":
        return "endless";
      case "rate_limited":
        return fail(
          429,
          "requests",
          "rate_limit_error",
          "Rate limit reached; please try again later.",
          retryAfter(reply.retryAfter),
        );
      case "server_error":
        return fail(500, "server_error", "api_error", "The server had an error while processing your request.");
      case "overloaded":
        return protocol === "openai"
          ? fail(503, "server_error", "", "The engine is currently overloaded, please try again later")
          : fail(529, "", "overloaded_error", "Overloaded");
      case "status":
        return json(reply.status, reply.body);
      case "malformed_tool_json": {
        const args = reply.arguments ?? '{"selector": "#submit", ';
        // The Anthropic API sends parsed objects, so the closest fault is a body cut short.
        if (protocol === "anthropic")
          return {
            status: 200,
            body: `{"id":"${nextId("msg_")}","type":"message","content":[{"type":"tool_use","input":${args}`,
          };
        reply = { toolCalls: [{ name: reply.name ?? "click", arguments: args }] };
        return render(protocol, reply, rawLength);
      }
    }
  }
  const calls = (reply.toolCalls ?? []).map((c) => ({ ...c, id: c.id ?? nextId(protocol === "openai" ? "call_" : "toolu_") }));
  const text = reply.text ?? "";
  const usage = {
    input: reply.usage?.inputTokens ?? Math.ceil(rawLength / 4),
    output: reply.usage?.outputTokens ?? Math.ceil((text.length + JSON.stringify(calls).length) / 4),
  };
  if (protocol === "openai") {
    const stop = reply.stop === "max_tokens" ? "length" : calls.length > 0 ? "tool_calls" : "stop";
    // malformed_tool_json passes its arguments through as an already-broken string.
    const toolCalls = calls.map((c) => ({
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments) },
    }));
    const message = {
      role: "assistant",
      content: text === "" && calls.length > 0 ? null : text,
      refusal: null,
      ...(calls.length > 0 ? { tool_calls: toolCalls } : {}),
    };
    return json(200, {
      id: nextId("chatcmpl-"),
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: "scripted",
      choices: [{ index: 0, message, logprobs: null, finish_reason: stop }],
      usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
    });
  }
  const content = [
    ...(text ? [{ type: "text", text }] : []),
    ...calls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.arguments })),
  ];
  return json(200, {
    id: nextId("msg_"),
    type: "message",
    role: "assistant",
    model: "scripted",
    content,
    stop_reason: reply.stop === "max_tokens" ? "max_tokens" : calls.length > 0 ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: usage.input, output_tokens: usage.output },
  });
}

/** Starts the server; `apiKey` is what requests must carry (a fixed test key by default). */
export async function startScriptedModel(script: Script, options: { apiKey?: string } = {}): Promise<ScriptedModel> {
  const apiKey = options.apiKey ?? "sk-test-scripted-0123456789abcdef";
  let current = script;
  let queueIndex = 0;
  const requests: RecordedRequest[] = [];
  const turns: ScriptTurn[] = [];
  const next = async (turn: ScriptTurn): Promise<ScriptedReply> => {
    if (typeof current === "function") return current(turn);
    const reply = current[queueIndex++];
    if (!reply) throw bad(`scripted model: the script has no reply for request ${queueIndex}`);
    return reply;
  };
  const handle = async (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const protocol: Protocol | null = path === "/v1/chat/completions" ? "openai" : path === "/v1/messages" ? "anthropic" : null;
    let body: unknown = raw;
    const record: RecordedRequest = { protocol, path, headers: req.headers, body, status: 0 };
    requests.push(record);
    const send = (sent: Sent) => {
      if (sent === "hang") return;
      if (sent === "endless") {
        record.status = 200;
        return writeEndlessJson(res, '{"choices": [{"message": {"content": "', "blah ".repeat(20_000));
      }
      record.status = sent.status;
      res.writeHead(sent.status, { "content-type": "application/json", ...sent.headers });
      res.end(sent.body);
    };
    if (!protocol || req.method !== "POST") {
      const r = new Reject(
        404,
        protocol === "openai" ? "invalid_request_error" : "not_found_error",
        `Invalid URL (${req.method} ${path})`,
      );
      return send({ status: 404, body: JSON.stringify(errorBody(protocol ?? "openai", r)) });
    }
    try {
      checkAuth(protocol, req.headers, apiKey);
      try {
        body = JSON.parse(raw);
        record.body = body;
      } catch {
        throw bad(
          protocol === "openai"
            ? "We could not parse the JSON body of your request."
            : "There was an error parsing the body of your request.",
        );
      }
      if (!isObj(body)) throw bad("The request body must be a JSON object.");
      const turn = withContext(protocol === "openai" ? parseOpenAI(body) : parseAnthropic(body), turns.length + 1);
      turns.push(turn);
      send(render(protocol, await next(turn), raw.length));
    } catch (err) {
      const r = err instanceof Reject ? err : new Reject(500, "api_error", `scripted model: ${String(err)}`);
      send({ status: r.status, body: JSON.stringify(errorBody(protocol, r)) });
    }
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => void handle(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    apiKey,
    requests,
    turns,
    setScript: (s) => {
      current = s;
      queueIndex = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
