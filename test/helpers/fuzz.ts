import {
  deepJson,
  HOSTILE_JSON,
  hostileStrings,
  NOT_UTF8,
  ODD_CONTENT_TYPES,
  ODD_KEYS,
  pick,
  RAW_BODIES,
  RAW_ENCODED,
  RAW_PATH_VALUES,
  type Rng,
  rawEncode,
} from "./fuzz-inputs.ts";
import { deref, type FuzzOperation, type Schema, sample } from "./fuzz-operations.ts";

export { LIVE_TOKEN, operationsOf, undocumentedOperations } from "./fuzz-operations.ts";
export type { FuzzOperation };

/**
 * A schema-driven HTTP fuzzer for the in-process app (test/http/fuzz.test.ts, `npm run bench -- fuzz`).
 * It reads the OpenAPI documents the app serves, builds one plausible request per operation from
 * the schemas, and then sends hostile variants of it: wrong types, extreme numbers, NUL, lone
 * surrogates, CR/LF, percent-encoded garbage, 1 MB strings, invalid JSON and UTF-8, deep nesting,
 * duplicate and unknown keys, odd content types, odd API keys. What it checks is the one thing
 * every variant shares: the server answers, never with a 5xx, and every error has the spec 7.1 shape.
 *
 * The operations and baseline values come from fuzz-operations.ts, the hostile values from
 * fuzz-inputs.ts; sending and judging the requests is fuzz-run.ts.
 *
 * Nothing here may reach the network: URLs in bodies point at 127.0.0.1 (which the address policy
 * refuses) and `guardNetwork` refuses any socket to a non-loopback address while a run lasts.
 */

// --- requests ----------------------------------------------------------------------------------

export interface FuzzRequest {
  method: string;
  /** Path and query, already encoded. */
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** What was varied, for the report. */
  label: string;
  /** The operation it varies, `METHOD /path/{template}`. */
  operation: string;
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

function jsonWithBytes(field: string, bytes: Uint8Array): Uint8Array {
  const head = new TextEncoder().encode(`{"${field}":"a`);
  const tail = new TextEncoder().encode('"}');
  const out = new Uint8Array(head.length + bytes.length + tail.length);
  out.set(head);
  out.set(bytes, head.length);
  out.set(tail, head.length + bytes.length);
  return out;
}

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
    operation: `${op.method} ${op.path}`,
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
    // An optional property with one field inside it (or all of it) hostile: the plausible body
    // carries required properties only, so without this a body with none (POST /browser) would
    // never have its fields fuzzed.
    add(4, () => {
      const [name, prop] = pick(rng, optional.length ? optional : [["extra", {}] as [string, Schema]]);
      const sampled = sample(prop, op.components, rng, 1);
      const path = pick(rng, fieldPaths(sampled));
      const hostile = rng() < 0.6 ? pick(rng, strings) : pick(rng, HOSTILE_JSON);
      const value = withField(sampled, path, hostile);
      return plain(`optional ${[name, ...path].join(".")}=${JSON.stringify(hostile)?.slice(0, 60)}`, {
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
