import { pick, type Rng } from "./fuzz-inputs.ts";

/**
 * The fuzzer's view of the API (fuzz.ts): every operation of the OpenAPI documents the app serves,
 * the routes they do not describe, and a plausible baseline value for any schema, from which
 * fuzz.ts derives the hostile variants.
 */

export type Schema = Record<string, unknown>;
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

/** The token the live-view operations' plausible requests carry (fuzz-run.ts opens a browser session with it). */
export const LIVE_TOKEN = "a".repeat(32);

/** Routes the documents do not describe but a caller can reach: the run and browser session live views' token URLs. */
export function undocumentedOperations(): FuzzOperation[] {
  const token: FuzzParam = { name: "token", in: "path", required: true, schema: { type: "string", example: LIVE_TOKEN } };
  const views = ["/v1/live/{token}", "/browser/live/{token}"];
  return views
    .flatMap((view) => [view, `${view}/frame`, `${view}/state`])
    .map((path) => ({
      method: "GET",
      path,
      params: [token],
      components: {},
    }));
}

export function deref(schema: Schema, components: Record<string, Schema>): Schema {
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
