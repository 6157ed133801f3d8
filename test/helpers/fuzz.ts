import net from "node:net";
import type { Db } from "../../functions/db/db.ts";
import type { Logger } from "../../functions/lib/logger.ts";
import { ENTITLEMENTS } from "../../schema/plans.ts";
import { createTestContext, type TestContext } from "./app.ts";

/**
 * A schema-driven HTTP fuzzer for the in-process app (test/http/fuzz.test.ts, `npm run bench -- fuzz`).
 * It reads the OpenAPI documents the app serves, builds one plausible request per operation from
 * the schemas, and then sends hostile variants of it: wrong types, extreme numbers, NUL, lone
 * surrogates, CR/LF, percent-encoded garbage, 1 MB strings, invalid JSON and UTF-8, deep nesting,
 * duplicate and unknown keys, odd content types, odd API keys. What it checks is the one thing
 * every variant shares: the server answers, never with a 5xx, and every error has the spec 7.1 shape.
 *
 * Nothing here may reach the network: URLs in bodies point at 127.0.0.1 (which the address policy
 * refuses) and `guardNetwork` refuses any socket to a non-loopback address while a run lasts.
 */

/** Deterministic PRNG (mulberry32), so a failing case can be replayed from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rng = () => number;
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)] as T;

// --- the app under test ----------------------------------------------------------------------

/** The only origin bodies may name: loopback, on the discard port, where nothing answers. */
const LOCAL_ORIGIN = { host: "127.0.0.1", port: 9 };

/**
 * The in-process app as the fuzzer drives it. So that hostile bodies reach the code that stores
 * them (run requests in jsonb, fetch usage rows), 127.0.0.1:9 is an allowed host and a model is
 * configured; but there is no queue and no worker, so an admitted run fails at once without ever
 * starting, and the model (also on 127.0.0.1:9) is never called. Every host name resolves to
 * 127.0.0.1: no DNS query leaves the machine.
 */
export function createFuzzContext(db: Db, logger: Logger): TestContext {
  return createTestContext(db, {
    logger,
    fetch: {
      config: { allowPrivateHosts: [LOCAL_ORIGIN], fetchNeverExpireHosts: [] },
      resolver: async () => [{ address: LOCAL_ORIGIN.host, family: 4 }],
    },
    runs: {
      model: {
        provider: "openai",
        baseUrl: `http://${LOCAL_ORIGIN.host}:${LOCAL_ORIGIN.port}/v1`,
        model: "fuzz",
        apiKey: "fuzz",
      },
      allowPrivateHosts: [LOCAL_ORIGIN],
    },
  });
}

/** The caller the fuzzer sends as: every optional capability it can ask for, and credits to start runs. */
export async function fuzzKey(ctx: TestContext): Promise<string> {
  const { key, accountId } = await ctx.newKey({ entitlements: [...ENTITLEMENTS] });
  await ctx.services.accounts.addCredits(accountId, 1_000_000);
  return key;
}

// --- OpenAPI documents -------------------------------------------------------------------------

type Schema = Record<string, unknown>;
interface OpenApiDoc {
  servers?: { url: string }[];
  paths: Record<string, Record<string, OperationObject>>;
  components?: { schemas?: Record<string, Schema> };
}
interface OperationObject {
  parameters?: { name: string; in: string; required?: boolean; schema?: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

export interface FuzzParam {
  name: string;
  in: "path" | "query";
  required: boolean;
  schema: Schema;
}

export interface FuzzOperation {
  method: string;
  /** Full path template from the server root, `{name}` for path parameters. */
  path: string;
  params: FuzzParam[];
  /** The JSON request body's schema, $refs resolved lazily through `components`. */
  body?: Schema;
  components: Record<string, Schema>;
}

const METHODS = new Set(["get", "post", "put", "patch", "delete"]);

/** Every operation of the given documents, once each (the combined and per-surface documents overlap). */
export function operationsOf(docs: OpenApiDoc[]): FuzzOperation[] {
  const seen = new Map<string, FuzzOperation>();
  for (const doc of docs) {
    const prefix = (doc.servers?.[0]?.url ?? "/").replace(/\/$/, "");
    const components = doc.components?.schemas ?? {};
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!METHODS.has(method)) continue;
        const full = `${prefix}${path}`.replace(/(.)\/$/, "$1") || "/";
        const key = `${method.toUpperCase()} ${full}`;
        if (seen.has(key)) continue;
        const params = (op.parameters ?? [])
          .filter((p) => p.in === "path" || p.in === "query")
          .map((p) => ({ name: p.name, in: p.in as "path" | "query", required: !!p.required, schema: p.schema ?? {} }));
        const body = op.requestBody?.content?.["application/json"]?.schema;
        seen.set(key, { method: method.toUpperCase(), path: full, params, ...(body ? { body } : {}), components });
      }
    }
  }
  return [...seen.values()];
}

/** Routes the documents do not describe but a caller can reach (the live view's token URLs). */
export function undocumentedOperations(): FuzzOperation[] {
  const token: FuzzParam = { name: "token", in: "path", required: true, schema: { type: "string", example: "a".repeat(32) } };
  return ["/v1/live/{token}", "/v1/live/{token}/frame", "/v1/live/{token}/state"].map((path) => ({
    method: "GET",
    path,
    params: [token],
    components: {},
  }));
}

function deref(schema: Schema, components: Record<string, Schema>): Schema {
  let s = schema;
  for (let i = 0; i < 20 && typeof s.$ref === "string"; i++) {
    s = components[(s.$ref as string).replace("#/components/schemas/", "")] ?? {};
  }
  return s;
}

/** Any http(s) URL in a generated value is moved to a loopback origin: the fuzzer never leaves the machine. */
function localUrl(value: string): string {
  const m = /^(https?):\/\/[^/?#]*(.*)$/i.exec(value);
  return m ? `${m[1]}://127.0.0.1:9${m[2] || "/"}` : value;
}

/**
 * A plausible value for a schema: its example when it has one, else the smallest value that fits.
 * Objects get their required properties only (optional ones often depend on each other: a
 * `profile_id` needs `use_profile`), so that the baseline passes validation and its variants reach
 * the code behind it; optional properties are added one at a time as variants.
 */
export function sample(schema: Schema, components: Record<string, Schema>, rng: Rng, depth = 0): unknown {
  const s = deref(schema, components);
  if (s.example !== undefined) return localize(s.example);
  if (s.default !== undefined) return s.default;
  if (Array.isArray(s.enum) && s.enum.length > 0) return pick(rng, s.enum);
  const variants = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (variants?.length) return sample(variants.find((v) => v.type !== "null") ?? variants[0] ?? {}, components, rng, depth + 1);
  const type = Array.isArray(s.type) ? (s.type.find((t) => t !== "null") as string) : (s.type as string | undefined);
  switch (type) {
    case "string": {
      if (s.format === "date-time") return "2026-11-21T10:00:00.000Z";
      if (s.format === "date") return "2026-11-21";
      if (s.format === "uri" || s.format === "url") return "http://127.0.0.1:9/";
      return "x".repeat(Math.max(1, Number(s.minLength ?? 1)));
    }
    case "integer":
    case "number":
      return Number(s.minimum ?? 1);
    case "boolean":
      return true;
    case "array":
      return depth > 6 ? [] : [sample((s.items as Schema) ?? {}, components, rng, depth + 1)];
    case "object": {
      if (depth > 6) return {};
      const out: Record<string, unknown> = {};
      const required = new Set((s.required as string[] | undefined) ?? []);
      for (const [name, prop] of Object.entries((s.properties as Record<string, Schema>) ?? {})) {
        if (required.has(name)) out[name] = sample(prop, components, rng, depth + 1);
      }
      return out;
    }
    default:
      return "x";
  }
}

function localize(value: unknown): unknown {
  if (typeof value === "string") return localUrl(value);
  if (Array.isArray(value)) return value.map(localize);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, localize(v)]));
  return value;
}

// --- hostile values ----------------------------------------------------------------------------

/** Strings that have broken servers: control characters, bad UTF-16, encodings, traversal, number-likes. */
export function hostileStrings(big: boolean): string[] {
  return [
    "\u0000",
    "a\u0000b",
    "\ud800",
    "x\udfffy",
    "\udc00\ud800",
    "\r\n",
    "a\r\nX-Injected: 1",
    "%00",
    "%ED%A0%80",
    "%zz",
    "%",
    "..",
    "../../../etc/passwd",
    "%2F",
    "%2e%2e%2f",
    "𝓤ñí©ødé 🦅 中文 العربية",
    "\u202e\u200b\ufeff",
    "",
    " ",
    "\t",
    "null",
    "NaN",
    "Infinity",
    "-Infinity",
    "-1",
    "0",
    "-0",
    "1e309",
    "99999999999999999999999999",
    "9007199254740993",
    "0x10",
    "true",
    "'; drop table runs; --",
    "<script>alert(1)</script>",
    "\\",
    '"',
    "x".repeat(10_000),
    ...(big ? ["y".repeat(1_000_000)] : ["y".repeat(70_000)]),
    "http://127.0.0.1:9/\u0000",
    "http://127.0.0.1:9/%00",
    "https://127.0.0.1:9/a\ud800",
    "http://[::1]:9/",
    "file:///etc/passwd",
    "javascript:alert(1)",
  ];
}

/** JSON values of the wrong kind or size for almost any field. */
const HOSTILE_JSON: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  -0.000001,
  1e308,
  -1e308,
  2 ** 53 + 1,
  -(2 ** 63),
  [],
  {},
  [[[]]],
  { a: 1 },
  ["\u0000"],
  { "\u0000": "\ud800" },
  { "\ud800": 1 },
  { __proto__: { polluted: true } },
  { constructor: { prototype: { polluted: true } } },
];

/** `depth` nested arrays or objects, built as text (JSON.stringify of such a value could overflow the stack). */
export const deepJson = (depth: number, kind: "array" | "object") =>
  kind === "array" ? `${"[".repeat(depth)}${"]".repeat(depth)}` : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

/** Percent-encoded query or path text that no encoder would produce. */
const RAW_ENCODED = ["%00", "%ED%A0%80", "%ED%BF%BF", "%C0%AF", "%FF%FE", "%zz", "%", "%%", "%2", "a%00b", "%0D%0A", "%E2%80%AE"];

/** Values for a path parameter: traversal, encoded slashes, unicode, NUL, lengths. */
const RAW_PATH_VALUES = [
  "..",
  "%2e%2e",
  "..%2F..%2Fetc%2Fpasswd",
  "%2F",
  "a%2Fb",
  encodeURIComponent("𝓤ñí©ødé"),
  encodeURIComponent("run_\u202e"),
  "%00",
  "run_%00",
  "%ED%A0%80",
  "run_%ED%A0%80",
  "%C0%AE%C0%AE",
  "-1",
  "0",
  "99999999999999999999",
  "1e309",
  "NaN",
  "Infinity",
  "run_00000000000000000000000000",
  "run_01jd8q3x6f4b2c9e1h7k5m3n8p",
  "x".repeat(5000),
  "%20",
  "%0D%0A",
  "'",
  "%22",
  "*",
  "~",
];

/** Encodes a string for a URL; lone surrogates (which encodeURIComponent refuses) become %ED%xx%xx, as a hostile client would send. */
export function rawEncode(s: string): string {
  let out = "";
  for (const ch of s) {
    const code = ch.codePointAt(0) ?? 0;
    if (code >= 0xd800 && code <= 0xdfff) {
      out += `%ED%${(0xa0 | ((code >> 6) & 0x1f)).toString(16).toUpperCase()}%${(0x80 | (code & 0x3f)).toString(16).toUpperCase()}`;
    } else out += encodeURIComponent(ch);
  }
  return out;
}

// --- requests ----------------------------------------------------------------------------------

export interface FuzzRequest {
  method: string;
  /** Path and query, already encoded. */
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** What was varied, for the report. */
  label: string;
}

export interface GenerateOptions {
  /** A valid API key; requests are sent with it except where the key is what is varied. */
  key: string;
  /** Requests per operation. */
  perOperation: number;
  /** Include 1 MB strings and bodies (the bench); the test suite keeps them smaller. */
  big: boolean;
}

function fillPath(op: FuzzOperation, values: Record<string, string>): string {
  return op.path.replace(/\{([^}]+)\}/g, (_, name: string) => values[name] ?? "x");
}

function queryString(pairs: [string, string][]): string {
  return pairs.length ? `?${pairs.map(([k, v]) => `${k}=${v}`).join("&")}` : "";
}

/** Paths into `value` where a field can be replaced: [] is the root. */
function fieldPaths(value: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(prefix);
  if (prefix.length > 6) return out;
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) fieldPaths(v, [...prefix, i], out);
  } else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) fieldPaths(v, [...prefix, k], out);
  return out;
}

function withField(root: unknown, path: (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let node = copy;
  for (const part of path.slice(0, -1)) node = node[part] as Record<string | number, unknown>;
  node[path[path.length - 1] as string | number] = replacement;
  return copy;
}

/** Bytes that are not UTF-8, wrapped in a JSON string. */
const NOT_UTF8: Uint8Array[] = [
  [0xff, 0xfe],
  [0xed, 0xa0, 0x80],
  [0xc0, 0xaf],
  [0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0x00],
].map((bytes) => new Uint8Array(bytes));

function jsonWithBytes(field: string, bytes: Uint8Array): Uint8Array {
  const head = new TextEncoder().encode(`{"${field}":"a`);
  const tail = new TextEncoder().encode('"}');
  const out = new Uint8Array(head.length + bytes.length + tail.length);
  out.set(head);
  out.set(bytes, head.length);
  out.set(tail, head.length + bytes.length);
  return out;
}

const ODD_KEYS = [
  "",
  " ",
  "osk_",
  "osk_\u00ff\u00fe\u00e9",
  "\u00ff".repeat(64),
  `osk_${"a".repeat(10_000)}`,
  "osk_%00",
  "' or 1=1 --",
];
const ODD_CONTENT_TYPES = [
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/json; charset=latin1",
  "application/json; charset=utf-16",
  "application/jsonx",
  "application/vnd.api+json",
  "*/*",
  "application/xml",
];
const RAW_BODIES = [
  "",
  "{",
  '{"a":}',
  "[1,]",
  "NaN",
  "'single'",
  "null",
  "true",
  "0",
  '"string"',
  "[]",
  "\u0000",
  '{"a":1}{"b":2}',
  '{"\\u0000":1}',
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  "\ufeff{}",
];

/**
 * `perOperation` requests for one operation. The first is the plausible request itself; the rest
 * each vary one thing (a parameter, a body field, the whole body, its encoding, the key).
 */
export function generateRequests(op: FuzzOperation, rng: Rng, opts: GenerateOptions): FuzzRequest[] {
  const strings = hostileStrings(opts.big);
  const auth = { "x-api-key": opts.key };
  const pathValues = Object.fromEntries(
    op.params.filter((p) => p.in === "path").map((p) => [p.name, rawEncode(String(sample(p.schema, op.components, rng)))]),
  );
  const baseQuery = (): [string, string][] =>
    op.params
      .filter((p) => p.in === "query" && (p.required || rng() < 0.3))
      .map((p) => [p.name, rawEncode(String(sample(p.schema, op.components, rng)))]);
  const baseBody = op.body ? sample(op.body, op.components, rng) : undefined;
  const jsonHeaders = { ...auth, "content-type": "application/json" };
  const plain = (label: string, over: Partial<FuzzRequest> = {}): FuzzRequest => ({
    method: op.method,
    url: fillPath(op, pathValues) + queryString(baseQuery()),
    headers: op.body ? jsonHeaders : auth,
    ...(op.body ? { body: JSON.stringify(baseBody) } : {}),
    label,
    ...over,
  });

  // Each variant is listed `weight` times: most requests vary inputs, fewer vary the key or method.
  const variants: (() => FuzzRequest)[] = [];
  const add = (weight: number, make: () => FuzzRequest) => {
    for (let i = 0; i < weight; i++) variants.push(make);
  };
  // Path parameters: traversal, encodings, NUL, lone surrogates, unicode.
  for (const p of op.params.filter((x) => x.in === "path")) {
    add(6, () => {
      const raw = rng() < 0.5 ? pick(rng, RAW_PATH_VALUES) : rawEncode(pick(rng, strings).slice(0, 5000));
      return plain(`path ${p.name}=${raw.slice(0, 60)}`, { url: fillPath(op, { ...pathValues, [p.name]: raw }) });
    });
  }
  // Query parameters: hostile values, raw encodings, duplicates, unknown names.
  const queryParams = op.params.filter((x) => x.in === "query");
  if (queryParams.length > 0) {
    add(6, () => {
      const p = pick(rng, queryParams);
      const value = rng() < 0.4 ? pick(rng, RAW_ENCODED) : rawEncode(pick(rng, strings));
      const q = baseQuery().filter(([k]) => k !== p.name);
      q.push([p.name, value]);
      return plain(`query ${p.name}=${value.slice(0, 60)}`, { url: fillPath(op, pathValues) + queryString(q) });
    });
    add(2, () => {
      const p = pick(rng, queryParams);
      const q = [...baseQuery(), [p.name, "1"], [p.name, rawEncode(pick(rng, strings).slice(0, 100))]] as [string, string][];
      return plain(`query ${p.name} twice`, { url: fillPath(op, pathValues) + queryString(q) });
    });
  }
  add(2, () => {
    const name = pick(rng, [...RAW_ENCODED, "a[]", "a[b][c]", "__proto__", "constructor", rawEncode("\ud800")]);
    const q: [string, string][] = [...baseQuery(), [name, rawEncode(pick(rng, strings).slice(0, 100))]];
    return plain(`unknown query ${name}`, { url: fillPath(op, pathValues) + queryString(q) });
  });
  // The API key.
  add(1, () => {
    const key = pick(rng, ODD_KEYS);
    return plain(`x-api-key ${JSON.stringify(key.slice(0, 20))}`, {
      headers: { ...(op.body ? { "content-type": "application/json" } : {}), "x-api-key": key },
    });
  });
  add(1, () => plain("no api key", { headers: op.body ? { "content-type": "application/json" } : {} }));
  add(1, () =>
    plain("odd x-request-id", {
      headers: {
        ...(op.body ? jsonHeaders : auth),
        "x-request-id": pick(rng, ["\u00ff\u00fe", "x".repeat(8000), "req_%00", ""]),
      },
    }),
  );
  add(1, () => plain(`method ${op.method}→other`, { method: pick(rng, ["PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"]) }));

  if (op.body !== undefined) {
    const paths = fieldPaths(baseBody);
    // One field replaced by a hostile string or a JSON value of the wrong kind.
    const field = () => {
      const path = pick(rng, paths);
      const value = rng() < 0.6 ? pick(rng, strings) : pick(rng, HOSTILE_JSON);
      const body = JSON.stringify(withField(baseBody, path, value));
      return plain(`body ${path.join(".") || "(root)"}=${JSON.stringify(value)?.slice(0, 60)}`, { body });
    };
    add(10, field);
    const optional = Object.entries((deref(op.body, op.components).properties as Record<string, Schema>) ?? {});
    add(4, () => {
      const [name, prop] = pick(rng, optional.length ? optional : [["extra", {}] as [string, Schema]]);
      const value = sample(prop, op.components, rng, 1);
      return plain(`optional ${name}=${JSON.stringify(value)?.slice(0, 60)}`, {
        body: JSON.stringify({ ...(baseBody as object), [name]: value }),
      });
    });
    // An unknown or hostile key.
    add(3, () => {
      const key = pick(rng, ["\u0000", "\ud800", "a\u0000b", "__proto__", "constructor", "x".repeat(10_000), "", "𝓤"]);
      const parent = pick(
        rng,
        paths.filter((p) => {
          const v = p.reduce<unknown>((n, k) => (n as Record<string | number, unknown>)?.[k], baseBody);
          return v !== null && typeof v === "object" && !Array.isArray(v);
        }),
      );
      const body = JSON.stringify(withField(baseBody, [...(parent ?? []), key], pick(rng, strings).slice(0, 100)));
      return plain(`body key ${JSON.stringify(key.slice(0, 20))} under ${(parent ?? []).join(".") || "(root)"}`, { body });
    });
    // Whole bodies: invalid JSON, wrong shapes, duplicate keys, deep nesting, not UTF-8, huge.
    add(2, () => {
      const body = pick(rng, RAW_BODIES);
      return plain(`raw body ${JSON.stringify(body.slice(0, 30))}`, { body });
    });
    add(1, () => {
      const text = JSON.stringify(baseBody);
      const first = Object.keys((baseBody as object) ?? {})[0] ?? "a";
      const body = text.replace(/^\{/, `{"${first}":${JSON.stringify(pick(rng, HOSTILE_JSON))},`);
      return plain(`duplicate key ${first}`, { body });
    });
    add(2, () => {
      const kind = pick(rng, ["array", "object"] as const);
      const depth = pick(rng, [1000, 10_000]);
      const where = pick(rng, paths);
      const marker = "__DEEP__";
      const body = JSON.stringify(withField(baseBody, where, marker)).replace(`"${marker}"`, deepJson(depth, kind));
      return plain(`deep ${kind} ×${depth} at ${where.join(".") || "(root)"}`, { body });
    });
    add(2, () => {
      const key = pick(rng, Object.keys((baseBody as object) ?? {}).concat("goal"));
      return plain(`non-UTF-8 bytes in ${key}`, { body: jsonWithBytes(key, pick(rng, NOT_UTF8)) });
    });
    add(1, () => plain("array instead of object", { body: JSON.stringify([baseBody]) }));
    add(1, () => {
      const type = pick(rng, ODD_CONTENT_TYPES);
      return plain(`content-type ${type}`, { headers: { ...auth, "content-type": type } });
    });
    add(1, () => plain("no content-type", { headers: auth }));
    if (opts.big) {
      add(1, () => plain("body over 1 MiB", { body: JSON.stringify({ ...(baseBody as object), pad: "p".repeat(1_100_000) }) }));
    }
  }

  // The cases the hardening issue names are sent for every operation, whatever the dice say.
  const out = [plain("plausible request"), ...namedCases(op, plain, pathValues, baseQuery, baseBody)];
  while (out.length < opts.perOperation) out.push(pick(rng, variants)());
  return out;
}

/** NUL and lone surrogates (raw and percent-encoded) in every parameter and top-level body field, a bad body encoding, deep nesting. */
function namedCases(
  op: FuzzOperation,
  plain: (label: string, over?: Partial<FuzzRequest>) => FuzzRequest,
  pathValues: Record<string, string>,
  baseQuery: () => [string, string][],
  baseBody: unknown,
): FuzzRequest[] {
  const out: FuzzRequest[] = [];
  const encodedBad = ["%00", "%ED%A0%80", "%FF"];
  op.params.forEach((p, i) => {
    for (const bad of ["a%00b", encodedBad[i % encodedBad.length] as string]) {
      if (p.in === "path") {
        out.push(plain(`named: path ${p.name}=${bad}`, { url: fillPath(op, { ...pathValues, [p.name]: bad }) }));
      } else {
        const q: [string, string][] = [...baseQuery().filter(([k]) => k !== p.name), [p.name, bad]];
        out.push(plain(`named: query ${p.name}=${bad}`, { url: fillPath(op, pathValues) + queryString(q) }));
      }
    }
  });
  if (op.body === undefined || !baseBody || typeof baseBody !== "object") return out;
  Object.keys(baseBody).forEach((field, i) => {
    const bad = i % 2 === 0 ? "a\u0000b" : "a\ud800b";
    out.push(plain(`named: body ${field}=${JSON.stringify(bad)}`, { body: JSON.stringify({ ...baseBody, [field]: bad }) }));
  });
  out.push(plain("named: NUL in a key", { body: JSON.stringify({ ...baseBody, "k\u0000": 1 }) }));
  out.push(plain("named: body not UTF-8", { body: jsonWithBytes(Object.keys(baseBody)[0] ?? "a", NOT_UTF8[1] as Uint8Array) }));
  out.push(plain("named: 10,000 levels deep", { body: deepJson(10_000, "array") }));
  return out;
}

// --- running -----------------------------------------------------------------------------------

export interface FuzzFailure {
  request: FuzzRequest;
  status: number | "timeout" | "threw";
  detail: string;
}

export interface FuzzReport {
  sent: number;
  /** Status code → count ("timeout" and "threw" when the app did not answer). */
  histogram: Record<string, number>;
  /** 5xx answers, timeouts and exceptions out of app.request. */
  failures: FuzzFailure[];
  /** 4xx answers whose body or X-Request-ID do not follow spec 7.1. */
  malformed: FuzzFailure[];
}

interface RequestTarget {
  request(url: string, init: RequestInit): Response | Promise<Response>;
}

/** Why a 4xx/5xx body breaks spec 7.1 (`{error:{code,message,details?},request_id}`), or null. */
export function errorShapeProblem(status: number, text: string, headers: Headers): string | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return "body is not JSON";
  }
  const b = body as { error?: { code?: unknown; message?: unknown; details?: unknown }; request_id?: unknown };
  if (!b || typeof b !== "object" || !b.error || typeof b.error !== "object") return "no error object";
  const keys = Object.keys(b).sort().join(",");
  if (keys !== "error,request_id") return `top-level keys ${keys}`;
  if (typeof b.error.code !== "string" || typeof b.error.message !== "string") return "error.code or error.message missing";
  const extra = Object.keys(b.error).filter((k) => !["code", "message", "details"].includes(k));
  if (extra.length) return `unexpected error keys ${extra.join(",")}`;
  if (b.error.details !== undefined) {
    if (status !== 400 && status !== 413) return `details on a ${status}`;
    if (!Array.isArray(b.error.details)) return "details is not an array";
    for (const d of b.error.details as Record<string, unknown>[]) {
      if (typeof d.code !== "string" || typeof d.message !== "string" || !Array.isArray(d.path))
        return "a detail lacks code/path/message";
    }
  }
  if (typeof b.request_id !== "string" || !b.request_id.startsWith("req_")) return "request_id missing";
  if (headers.get("x-request-id") !== b.request_id) return "X-Request-ID differs from request_id";
  return null;
}

/**
 * Sends every request, one at a time, and sorts the answers. `between` runs after each request
 * (the harness moves the test clock so that rate limits do not hide what lies behind them).
 */
export async function runFuzz(
  target: RequestTarget,
  requests: FuzzRequest[],
  opts: { timeoutMs?: number; between?: (i: number) => void; onFailure?: (f: FuzzFailure) => void } = {},
): Promise<FuzzReport> {
  const report: FuzzReport = { sent: 0, histogram: {}, failures: [], malformed: [] };
  const count = (k: string) => {
    report.histogram[k] = (report.histogram[k] ?? 0) + 1;
  };
  for (const [i, req] of requests.entries()) {
    report.sent++;
    const init: RequestInit = { method: req.method, headers: req.headers };
    if (req.body !== undefined && req.method !== "GET" && req.method !== "HEAD") init.body = req.body as BodyInit;
    let timer: NodeJS.Timeout | undefined;
    try {
      const answered = (async () => {
        const res = await target.request(req.url, init);
        return { res, text: await res.text() };
      })();
      const timeout = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), opts.timeoutMs ?? 30_000);
      });
      const got = await Promise.race([answered, timeout]);
      if (got === "timeout") {
        count("timeout");
        const f: FuzzFailure = { request: req, status: "timeout", detail: "no answer in time" };
        report.failures.push(f);
        opts.onFailure?.(f);
        continue;
      }
      const { res, text } = got;
      count(String(res.status));
      if (res.status >= 500) {
        const f: FuzzFailure = { request: req, status: res.status, detail: text.slice(0, 300) };
        report.failures.push(f);
        opts.onFailure?.(f);
      } else if (res.status >= 400 && req.method !== "HEAD") {
        const problem = errorShapeProblem(res.status, text, res.headers);
        if (problem) report.malformed.push({ request: req, status: res.status, detail: `${problem}: ${text.slice(0, 200)}` });
      }
    } catch (err) {
      count("threw");
      const f: FuzzFailure = { request: req, status: "threw", detail: err instanceof Error ? err.message : String(err) };
      report.failures.push(f);
      opts.onFailure?.(f);
    } finally {
      clearTimeout(timer);
      opts.between?.(i);
    }
  }
  return report;
}

/** One line describing a request, for reports (bodies cut short, control characters escaped). */
export function describeRequest(req: FuzzRequest): string {
  const body =
    req.body === undefined
      ? ""
      : typeof req.body === "string"
        ? ` body=${JSON.stringify(req.body.slice(0, 160))}${req.body.length > 160 ? `…(${req.body.length} chars)` : ""}`
        : ` body=bytes[${req.body.length}]`;
  const url = req.url.length > 200 ? `${req.url.slice(0, 200)}…(${req.url.length} chars)` : req.url;
  const headers = JSON.stringify(
    Object.fromEntries(
      Object.entries(req.headers).map(([k, v]) => [
        k,
        k === "x-api-key" && v.startsWith("osk_") && v.length > 40 ? "<valid key>" : v.slice(0, 60),
      ]),
    ),
  );
  return `${req.method} ${url} headers=${headers}${body} [${req.label}]`;
}

// --- network guard -----------------------------------------------------------------------------

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost", "::ffff:127.0.0.1"]);

/**
 * Refuses, for as long as it is installed, every TCP connection to anything but loopback: the
 * fuzzer's bodies hold URLs and a mistake in them must not become a request to the internet. A
 * refused connection fails the way a network error does, and is counted.
 */
export function guardNetwork(): { blocked: string[]; restore(): void } {
  const proto = net.Socket.prototype as unknown as { connect: (...args: unknown[]) => net.Socket };
  const original = proto.connect;
  const blocked: string[] = [];
  proto.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
    // Node calls connect either with (options | port, host) or with one already normalised array.
    const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
    const host =
      first && typeof first === "object"
        ? (first as { path?: string; host?: string }).path
          ? undefined
          : ((first as { host?: string }).host ?? "localhost")
        : typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))
          ? typeof args[1] === "string"
            ? args[1]
            : "localhost"
          : undefined;
    if (host !== undefined && !LOOPBACK.has(host.replace(/^\[|\]$/g, ""))) {
      blocked.push(host);
      process.nextTick(() => this.destroy(new Error(`fuzz network guard: connection to ${host} refused`)));
      return this;
    }
    return original.apply(this, args);
  };
  return {
    blocked,
    restore() {
      proto.connect = original;
    },
  };
}
