import type { Context, MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { AppError, type ErrorDetail } from "../../lib/app-error.ts";
import type { AppEnv } from "../app-env.ts";

/**
 * Postgres (and PGlite) cannot store a NUL character in text or jsonb, nor an unpaired UTF-16
 * surrogate in jsonb, and the drivers fail the whole query when one arrives: an id, a search
 * query or a goal holding one was a 500 (hardening issue). Every surface checks here, once, before
 * any route sees the request: path segments, query names and values (percent-decoded strictly),
 * and the JSON body (every key and string value, at any depth, and its bytes, which must be UTF-8).
 * A problem is 400 INVALID_INPUT with one `details` entry per offending field, in the validation
 * hook's shape. Malformed percent signs that encode nothing (`%zz`, a lone `%`) stay literal text,
 * as Hono reads them, since they cannot produce either character.
 */

const NUL_MESSAGE = "must not contain a NUL character (U+0000)";
const SURROGATE_MESSAGE = "must not contain an unpaired UTF-16 surrogate (U+D800 to U+DFFF)";
const ENCODING_MESSAGE = "percent-encoded bytes must be UTF-8";
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const JSON_TYPE = /^application\/([a-z-.]+\+)?json/i;
/** Enough to show the caller what to fix; a hostile body could otherwise produce a detail per string. */
const MAX_DETAILS = 20;

/** Why `text` cannot be stored as Postgres text or jsonb, or null when it can. */
export function unstorableText(text: string): string | null {
  if (text.includes("\u0000")) return NUL_MESSAGE;
  if (LONE_SURROGATE.test(text)) return SURROGATE_MESSAGE;
  return null;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Why a raw URL component cannot be decoded into storable text (`%00`, `%ED%A0%80`, `%FF`), or null. */
function encodedProblem(raw: string): string | null {
  for (const run of raw.match(/(?:%[0-9a-fA-F]{2})+/g) ?? []) {
    const bytes = Uint8Array.from(run.slice(1).split("%"), (h) => Number.parseInt(h, 16));
    let decoded: string;
    try {
      decoded = utf8.decode(bytes);
    } catch {
      return ENCODING_MESSAGE;
    }
    const problem = unstorableText(decoded);
    if (problem) return problem;
  }
  return unstorableText(raw);
}

/** Best-effort decoding for naming a query parameter in a detail. */
function displayName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, " "));
  } catch {
    return raw;
  }
}

function detail(location: string, path: (string | number)[], message: string): ErrorDetail {
  return { code: "invalid_format", format: "text", path, message, location };
}

/**
 * Path segments, named after the matched route's parameters (`/v1/runs/:id` → `id`); a segment no
 * parameter matches is named by its position (0 for the first segment after the leading slash).
 */
function pathDetails(c: Context<AppEnv>, pathname: string): ErrorDetail[] {
  const segments = pathname.split("/").slice(1);
  const pattern = routePath(c, -1).split("/").slice(1);
  const out: ErrorDetail[] = [];
  segments.forEach((raw, i) => {
    const problem = encodedProblem(raw);
    if (!problem) return;
    const param = /^:([^{]+)/.exec(pattern[i] ?? "")?.[1];
    out.push(detail("path", [param ?? i], problem));
  });
  return out;
}

function queryDetails(search: string): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const pair of search.replace(/^\?/, "").split("&")) {
    if (!pair) continue;
    const eq = pair.indexOf("=");
    const rawName = eq === -1 ? pair : pair.slice(0, eq);
    const problem = encodedProblem(rawName) ?? (eq === -1 ? null : encodedProblem(pair.slice(eq + 1)));
    if (problem) out.push(detail("query", [encodedProblem(rawName) ? rawName : displayName(rawName)], problem));
  }
  return out;
}

/**
 * Every key and string of a parsed JSON value that cannot be stored. Iterative, with parent links
 * instead of copied paths: a body may legally nest 10,000 levels deep.
 */
function bodyDetails(value: unknown): ErrorDetail[] {
  interface Node {
    value: unknown;
    key: string | number | null;
    parent: Node | null;
  }
  const pathOf = (node: Node, last?: string) => {
    const path: (string | number)[] = last === undefined ? [] : [last];
    for (let n: Node | null = node; n && n.key !== null; n = n.parent) path.unshift(n.key);
    return path;
  };
  const out: ErrorDetail[] = [];
  const stack: Node[] = [{ value, key: null, parent: null }];
  while (stack.length > 0 && out.length < MAX_DETAILS) {
    const node = stack.pop() as Node;
    const v = node.value;
    if (typeof v === "string") {
      const problem = unstorableText(v);
      if (problem) out.push(detail("body", pathOf(node), problem));
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], key: i, parent: node });
    } else if (v !== null && typeof v === "object") {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, child] = entries[i] as [string, unknown];
        const problem = unstorableText(k);
        // The key itself is the problem: the path names the object holding it, and the message says so.
        if (problem) out.push(detail("body", pathOf(node), `a key ${problem}`));
        else stack.push({ value: child, key: k, parent: node });
      }
    }
  }
  return out;
}

function reject(details: ErrorDetail[]): never {
  const first = details[0] as ErrorDetail;
  const where = first.path.length > 0 ? ` at ${first.location}.${first.path.join(".")}` : ` in ${first.location}`;
  throw new AppError("INVALID_INPUT", `Invalid input${where}: ${first.message}`, { details: details.slice(0, MAX_DETAILS) });
}

/** The middleware (installed by composeApp after the body limit, so a body is read at most 1 MiB far). */
export function storableText(): MiddlewareHandler<AppEnv> {
  return async function storableTextMiddleware(c, next) {
    const url = new URL(c.req.url);
    const urlDetails = [...pathDetails(c, url.pathname), ...queryDetails(url.search)];
    if (urlDetails.length > 0) reject(urlDetails);

    const type = c.req.header("content-type");
    if (type && JSON_TYPE.test(type) && c.req.raw.body) {
      const bytes = new Uint8Array(await c.req.arrayBuffer());
      let text: string;
      try {
        text = utf8.decode(bytes);
      } catch {
        throw new AppError("INVALID_INPUT", "The request body is not valid UTF-8 (JSON must be UTF-8 encoded).", {
          details: [
            { code: "invalid_format", format: "utf-8", path: [], message: "the body is not valid UTF-8", location: "body" },
          ],
        });
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Not JSON: the route's validator answers that, with its own message.
        return next();
      }
      const details = bodyDetails(parsed);
      if (details.length > 0) reject(details);
      // The validator reads the body through this cache: parsed once, here.
      c.req.bodyCache.json = Promise.resolve(parsed);
    }
    await next();
  };
}
