import { BodyTooLarge, readCapped } from "../../../functions/net/read-capped.ts";
import { ModelError, type ModelErrorKind } from "./types.ts";

/** What both wire adapters need to send one request. */
export interface WireOptions {
  baseUrl: string;
  model: string;
  apiKey: string | null;
  fetch?: typeof fetch;
}

/** Removes credentials from text a provider sent back (OpenAI's 401 echoes a masked key). */
export function redact(text: string, apiKey: string | null): string {
  let out = apiKey ? text.split(apiKey).join("<redacted>") : text;
  out = out.replace(/\bsk-[A-Za-z0-9_*-]+/g, "<redacted>");
  return out.length > 300 ? `${out.slice(0, 300)}…` : out;
}

/** Retry-After as seconds: `retry-after-ms`, delta-seconds (fractions tolerated) or an HTTP date. */
export function parseRetryAfter(headers: Headers, now = Date.now()): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms && /^\d+(\.\d+)?$/.test(ms.trim())) return Number(ms) / 1000;
  const v = headers.get("retry-after")?.trim();
  if (!v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - now) / 1000);
}

function kindForStatus(status: number): ModelErrorKind {
  if (status === 429) return "rate_limited";
  if (status === 401 || status === 403) return "auth";
  if (status === 408) return "timeout";
  if (status >= 500) return "unavailable";
  return "bad_request";
}

/** The provider's own error message from either protocol's error body, if there is one. */
function providerMessage(body: string): string | undefined {
  try {
    const json = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof json.error === "string") return json.error;
    if (typeof json.error?.message === "string") return json.error.message;
    if (typeof json.message === "string") return json.message;
  } catch {
    // Not JSON (a proxy's HTML page, say): fall through to the status alone.
  }
  return undefined;
}

/** The largest answer read from the model endpoint (one completion is a few KB; refused past this as it streams). */
export const MAX_MODEL_BODY_BYTES = 32 * 1024 * 1024;

/**
 * POSTs a JSON body and returns the parsed JSON answer, or throws a ModelError. An abort (the
 * caller's or a timeout) is rethrown as the signal's reason so the retry layer can tell them apart.
 */
export async function postJson(
  provider: string,
  opts: WireOptions,
  url: string,
  headers: Record<string, string>,
  body: unknown,
  signal: AbortSignal | undefined,
): Promise<unknown> {
  const doFetch = opts.fetch ?? fetch;
  let res: Response;
  let text: string;
  try {
    res = await doFetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", ...headers },
      body: JSON.stringify(body),
      signal,
    });
    text = await readCapped(res, MAX_MODEL_BODY_BYTES);
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    if (err instanceof BodyTooLarge) {
      throw new ModelError("invalid_response", `${provider}: the model endpoint answered more than ${err.max} bytes`);
    }
    throw new ModelError("unavailable", `${provider}: could not reach the model endpoint (${networkReason(err)})`, {
      cause: err,
    });
  }
  if (!res.ok) {
    const kind = kindForStatus(res.status);
    const said = providerMessage(text);
    const message = `${provider}: HTTP ${res.status}${said ? `: ${redact(said, opts.apiKey)}` : ""}`;
    const retryAfterSeconds = kind === "rate_limited" || kind === "unavailable" ? parseRetryAfter(res.headers) : undefined;
    throw new ModelError(kind, message, { status: res.status, retryAfterSeconds });
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ModelError("invalid_response", `${provider}: the response body is not JSON`, {
      status: res.status,
      raw: text.slice(0, 2000),
    });
  }
}

function networkReason(err: unknown): string {
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  const code = (cause as { code?: unknown } | null)?.code;
  if (typeof code === "string") return code;
  return cause instanceof Error ? cause.message : "network error";
}

/** Parses tool-call arguments; malformed JSON keeps the raw text so the agent can show it to the model. */
export function parseArguments(provider: string, name: string, raw: string): unknown {
  if (raw.trim() === "") return {};
  try {
    return JSON.parse(raw);
  } catch {
    throw new ModelError("invalid_response", `${provider}: the arguments of tool call "${name}" are not valid JSON`, { raw });
  }
}

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export function invalid(provider: string, what: string, raw: unknown): ModelError {
  return new ModelError("invalid_response", `${provider}: ${what}`, { raw: JSON.stringify(raw)?.slice(0, 2000) });
}
