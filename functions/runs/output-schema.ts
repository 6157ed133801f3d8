import { isIPv4, isIPv6 } from "node:net";
import { RE2JS } from "re2js";

/**
 * The structured-output schema of a run (spec 4.1 `output_schema`): a documented SUBSET of JSON
 * Schema. Supported keywords, and nothing else (anything else, e.g. $ref, oneOf, allOf, not,
 * if/then/else, patternProperties, dependencies, is rejected with its path):
 * - type: object | array | string | number | integer | boolean | null, or a non-empty list of those
 * - properties (object of subschemas), required (unique names declared in properties),
 *   additionalProperties (boolean only)
 * - items (a single subschema; tuple form not supported), minItems, maxItems
 * - enum (non-empty array), const
 * - minimum, maximum, exclusiveMinimum, exclusiveMaximum (numbers)
 * - minLength, maxLength, pattern (RE2 syntax, ≤ 1000 chars; see below), format (see OUTPUT_FORMATS)
 * - anyOf (non-empty array of subschemas), description, title (strings)
 * Limits: the root must be `type: "object"`; nesting depth ≤ 8 levels (the root is level 1);
 * ≤ 500 subschema nodes in total.
 *
 * `pattern` is matched with re2js (RE2 semantics, linear in the input), never with a JS RegExp: a
 * backtracking engine let `(\d+)+!$` hold the event loop for 82 s on a 33-character result, the
 * run's lease lapsed and a second worker drove and charged it again. RE2 has no backreferences
 * (`\1`) and no lookaround (`(?=`, `(?!`, `(?<=`, `(?<!`), and writes code points as `\x{41}` rather
 * than `\u0041`; such patterns are refused at submission. Like JSON Schema, a pattern matches
 * anywhere in the string unless anchored with ^ and $.
 *
 * Checking a result is bounded too: a result over OUTPUT_RESULT_MAX_BYTES of JSON, or a string
 * over OUTPUT_PATTERN_MAX_INPUT characters tested against a pattern, fails the check instead of
 * being scanned, and the whole check stops after OUTPUT_VALIDATION_BUDGET_MS.
 */
export const OUTPUT_SCHEMA_MAX_DEPTH = 8;
export const OUTPUT_SCHEMA_MAX_NODES = 500;
export const OUTPUT_PATTERN_MAX_LENGTH = 1000;
/**
 * RE2's own "program size" (its measure of a pattern's cost): a 1000-instruction pattern scans a
 * 16k-character string in about 0.3 s at worst (re2js on one core), which with the two bounds
 * below keeps a whole check within a few seconds, far inside the run's lease.
 */
export const OUTPUT_PATTERN_MAX_PROGRAM = 1000;
export const OUTPUT_PATTERN_MAX_INPUT = 16_384;
export const OUTPUT_RESULT_MAX_BYTES = 262_144;
export const OUTPUT_VALIDATION_BUDGET_MS = 2000;
export const OUTPUT_TYPES = ["object", "array", "string", "number", "integer", "boolean", "null"] as const;
export const OUTPUT_FORMATS = ["date", "date-time", "time", "email", "uri", "uuid", "ipv4", "ipv6", "hostname"] as const;
// biome-ignore format: one keyword list
export const OUTPUT_KEYWORDS = [
  "type", "properties", "required", "additionalProperties", "items", "minItems", "maxItems", "enum", "const",
  "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "pattern", "format",
  "anyOf", "description", "title",
] as const;

export type OutputType = (typeof OUTPUT_TYPES)[number];
export interface OutputSchema {
  type?: OutputType | OutputType[];
  properties?: Record<string, OutputSchema>;
  required?: string[];
  additionalProperties?: boolean;
  items?: OutputSchema;
  minItems?: number;
  maxItems?: number;
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: (typeof OUTPUT_FORMATS)[number];
  anyOf?: OutputSchema[];
  description?: string;
  title?: string;
}
export type Path = (string | number)[];
export interface SchemaIssue {
  path: Path;
  message: string;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const KEYWORDS = new Set<string>(OUTPUT_KEYWORDS);
const TYPES = new Set<string>(OUTPUT_TYPES);
const FORMATS = new Set<string>(OUTPUT_FORMATS);
const NUMERIC = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] as const;
const COUNTS = ["minLength", "maxLength", "minItems", "maxItems"] as const;

/** Checks that `schema` lies inside the supported subset; every issue carries its path. */
export function checkOutputSchema(schema: unknown): { ok: true } | { ok: false; issues: SchemaIssue[] } {
  const issues: SchemaIssue[] = [];
  let nodes = 0;
  const add = (path: Path, message: string): void => {
    issues.push({ path, message });
  };

  const walk = (node: unknown, path: Path, depth: number): void => {
    if (!isPlainObject(node)) {
      add(path, "must be a schema object");
      return;
    }
    if (depth > OUTPUT_SCHEMA_MAX_DEPTH) {
      add(path, `schema nesting exceeds ${OUTPUT_SCHEMA_MAX_DEPTH} levels`);
      return;
    }
    if (++nodes > OUTPUT_SCHEMA_MAX_NODES) return;
    for (const [key, value] of Object.entries(node)) {
      const at = [...path, key];
      if (!KEYWORDS.has(key)) {
        add(at, `unsupported keyword "${key}"`);
        continue;
      }
      if (key === "type") {
        const list = Array.isArray(value) ? value : [value];
        const bad = list.length === 0 || list.some((t) => typeof t !== "string" || !TYPES.has(t));
        if (bad) add(at, `must be one of ${OUTPUT_TYPES.join(", ")} or a non-empty list of them`);
        else if (new Set(list).size !== list.length) add(at, "must not repeat a type");
      } else if (key === "properties") {
        if (!isPlainObject(value)) add(at, "must be an object of schemas");
        else for (const [name, sub] of Object.entries(value)) walk(sub, [...at, name], depth + 1);
      } else if (key === "required") {
        const declared = isPlainObject(node.properties) ? node.properties : {};
        if (!Array.isArray(value)) add(at, "must be an array of property names");
        else
          value.forEach((name, i) => {
            if (typeof name !== "string") add([...at, i], "must be a string");
            else if (!Object.hasOwn(declared, name)) add([...at, i], `"${name}" is not declared in properties`);
            else if (value.indexOf(name) !== i) add([...at, i], `"${name}" is listed twice`);
          });
      } else if (key === "additionalProperties") {
        if (typeof value !== "boolean") add(at, "must be a boolean (schemas are not supported here)");
      } else if (key === "items") {
        walk(value, at, depth + 1);
      } else if (key === "anyOf") {
        if (!Array.isArray(value) || value.length === 0) add(at, "must be a non-empty array of schemas");
        else for (const [i, sub] of value.entries()) walk(sub, [...at, i], depth + 1);
      } else if (key === "enum") {
        if (!Array.isArray(value) || value.length === 0) add(at, "must be a non-empty array");
      } else if (key === "description" || key === "title") {
        if (typeof value !== "string") add(at, "must be a string");
      } else if (key === "pattern") {
        if (typeof value !== "string") add(at, "must be a string");
        else if (value.length > OUTPUT_PATTERN_MAX_LENGTH) add(at, `must be at most ${OUTPUT_PATTERN_MAX_LENGTH} characters`);
        else {
          const compiled = compile(value);
          if (typeof compiled === "string") add(at, `is not a valid RE2 regular expression (${compiled})`);
          else if (compiled.programSize() > OUTPUT_PATTERN_MAX_PROGRAM)
            add(at, `is too complex (RE2 program size ${compiled.programSize()} > ${OUTPUT_PATTERN_MAX_PROGRAM})`);
        }
      } else if (key === "format") {
        if (typeof value !== "string" || !FORMATS.has(value)) add(at, `must be one of ${OUTPUT_FORMATS.join(", ")}`);
      } else if ((NUMERIC as readonly string[]).includes(key)) {
        if (typeof value !== "number" || !Number.isFinite(value)) add(at, "must be a finite number");
      } else if ((COUNTS as readonly string[]).includes(key)) {
        if (typeof value !== "number" || !Number.isInteger(value) || value < 0) add(at, "must be a non-negative integer");
      }
    }
    for (const [lo, hi] of [
      ["minLength", "maxLength"],
      ["minItems", "maxItems"],
      ["minimum", "maximum"],
    ] as const) {
      const a = node[lo];
      const b = node[hi];
      if (typeof a === "number" && typeof b === "number" && a > b) add([...path, lo], `must not exceed ${hi}`);
    }
  };

  if (!isPlainObject(schema)) add([], "output_schema must be an object");
  else {
    if (schema.type !== "object") add(["type"], 'the root schema must have type "object"');
    walk(schema, [], 1);
    if (nodes > OUTPUT_SCHEMA_MAX_NODES) add([], `schema has more than ${OUTPUT_SCHEMA_MAX_NODES} nodes`);
  }
  return issues.length === 0 ? { ok: true } : { ok: false, issues };
}

/** The compiled pattern, or why RE2 refuses it (backreferences, lookaround, bad syntax). */
function compile(pattern: string): RE2JS | string {
  try {
    return RE2JS.compile(pattern);
  } catch (err) {
    return (err as Error).message.replace(/^error parsing regexp: /, "");
  }
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/i;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HOSTNAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

function validDate(v: string): boolean {
  const m = DATE.exec(v);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

const FORMAT_CHECKS: Record<(typeof OUTPUT_FORMATS)[number], (v: string) => boolean> = {
  date: validDate,
  "date-time": (v) => {
    const [d, t, extra] = v.split(/[Tt ]/);
    return extra === undefined && d !== undefined && t !== undefined && validDate(d) && TIME.test(t);
  },
  time: (v) => TIME.test(v),
  email: (v) => EMAIL.test(v),
  uri: (v) => /^[a-z][a-z0-9+.-]*:/i.test(v) && URL.canParse(v),
  uuid: (v) => UUID.test(v),
  ipv4: (v) => isIPv4(v),
  ipv6: (v) => isIPv6(v),
  hostname: (v) => HOSTNAME.test(v),
};

function jsonType(v: unknown): OutputType | undefined {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isFinite(v) ? (Number.isInteger(v) ? "integer" : "number") : undefined;
  if (typeof v === "string" || typeof v === "boolean") return typeof v as OutputType;
  return isPlainObject(v) ? "object" : undefined;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
}

interface CheckContext {
  deadline: number;
  now: () => number;
  patterns: Map<string, RE2JS | string>;
  expired: boolean;
}

/**
 * Checks a run's result against an output schema that passed checkOutputSchema, within the bounds
 * in the header (size, per-string pattern input, time budget): what exceeds them is an issue.
 */
export function validateAgainstOutputSchema(
  value: unknown,
  schema: OutputSchema,
  opts: { budgetMs?: number; now?: () => number } = {},
): SchemaIssue[] {
  const bytes = Buffer.byteLength(JSON.stringify(value) ?? "");
  if (bytes > OUTPUT_RESULT_MAX_BYTES) {
    return [{ path: [], message: `is ${bytes} bytes of JSON; results over ${OUTPUT_RESULT_MAX_BYTES} bytes are not accepted` }];
  }
  const now = opts.now ?? Date.now;
  const ctx: CheckContext = {
    deadline: now() + (opts.budgetMs ?? OUTPUT_VALIDATION_BUDGET_MS),
    now,
    patterns: new Map(),
    expired: false,
  };
  const issues = check(value, schema, [], ctx);
  if (ctx.expired)
    issues.push({ path: [], message: "could not be checked against the output schema in time; send a smaller result" });
  return issues;
}

/** Whether `value` matches `pattern`; null when the check is skipped (budget spent). */
function matchPattern(value: string, pattern: string, ctx: CheckContext): boolean | null {
  if (ctx.expired || ctx.now() > ctx.deadline) {
    ctx.expired = true;
    return null;
  }
  let re = ctx.patterns.get(pattern);
  if (re === undefined) {
    re = compile(pattern);
    ctx.patterns.set(pattern, re);
  }
  // checkOutputSchema refused patterns RE2 cannot compile; one that slips through matches nothing.
  return typeof re !== "string" && re.test(value);
}

function check(value: unknown, schema: OutputSchema, path: Path, ctx: CheckContext): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  const add = (message: string, at: Path = path) => issues.push({ path: at, message });
  const t = jsonType(value);
  if (schema.type !== undefined) {
    const allowed = Array.isArray(schema.type) ? schema.type : [schema.type];
    const ok = t !== undefined && (allowed.includes(t) || (t === "integer" && allowed.includes("number")));
    if (!ok) return [{ path, message: `expected ${allowed.join(" or ")}, got ${t ?? typeof value}` }];
  }
  if (schema.enum && !schema.enum.some((e) => deepEqual(e, value))) add("is not one of the allowed values");
  if ("const" in schema && !deepEqual(schema.const, value)) add("does not equal the constant value");
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum) add(`must be ≥ ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) add(`must be ≤ ${schema.maximum}`);
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) add(`must be > ${schema.exclusiveMinimum}`);
    if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) add(`must be < ${schema.exclusiveMaximum}`);
  }
  if (typeof value === "string") {
    const length = [...value].length;
    if (schema.minLength !== undefined && length < schema.minLength) add(`must have at least ${schema.minLength} characters`);
    if (schema.maxLength !== undefined && length > schema.maxLength) add(`must have at most ${schema.maxLength} characters`);
    if (schema.pattern !== undefined) {
      if (value.length > OUTPUT_PATTERN_MAX_INPUT)
        add(`is longer than ${OUTPUT_PATTERN_MAX_INPUT} characters, the most a pattern is checked on`);
      else if (matchPattern(value, schema.pattern, ctx) === false) add(`must match ${schema.pattern}`);
    }
    if (schema.format !== undefined && !FORMAT_CHECKS[schema.format](value)) add(`must be a valid ${schema.format}`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) add(`must have at least ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems) add(`must have at most ${schema.maxItems} items`);
    if (schema.items) for (const [i, item] of value.entries()) issues.push(...check(item, schema.items, [...path, i], ctx));
  }
  if (isPlainObject(value)) {
    for (const name of schema.required ?? []) if (!Object.hasOwn(value, name)) add("is required", [...path, name]);
    for (const [name, item] of Object.entries(value)) {
      const sub = schema.properties?.[name];
      if (sub) issues.push(...check(item, sub, [...path, name], ctx));
      else if (schema.additionalProperties === false) add("is not an allowed property", [...path, name]);
    }
  }
  if (schema.anyOf && !schema.anyOf.some((sub) => check(value, sub, path, ctx).length === 0)) {
    add("does not match any schema in anyOf");
  }
  return issues;
}
