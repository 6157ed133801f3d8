import { describe, expect, it } from "vitest";
import {
  checkOutputSchema,
  OUTPUT_PATTERN_MAX_INPUT,
  OUTPUT_RESULT_MAX_BYTES,
  OUTPUT_SCHEMA_MAX_DEPTH,
  OUTPUT_SCHEMA_MAX_NODES,
  type OutputSchema,
  validateAgainstOutputSchema,
} from "../../functions/runs/output-schema.ts";

const obj = (extra: Record<string, unknown> = {}) => ({ type: "object", ...extra });
const prop = (schema: Record<string, unknown>) => obj({ properties: { a: schema } });

function issuesOf(schema: unknown) {
  const result = checkOutputSchema(schema);
  return result.ok ? [] : result.issues;
}

describe("checkOutputSchema: accepted subset", () => {
  const accepted: [string, unknown][] = [
    ["bare object", obj()],
    [
      "every type",
      obj({
        properties: Object.fromEntries(
          ["object", "array", "string", "number", "integer", "boolean", "null"].map((t) => [t, { type: t }]),
        ),
      }),
    ],
    ["type list", prop({ type: ["string", "null"] })],
    ["required declared", obj({ properties: { a: { type: "string" } }, required: ["a"] })],
    ["items", prop({ type: "array", items: { type: "integer" }, minItems: 0, maxItems: 5 })],
    ["enum and const", obj({ properties: { a: { enum: ["x", 1, null] }, b: { const: { k: [1] } } } })],
    ["description and title", obj({ title: "T", description: "D" })],
    ["numeric bounds", prop({ type: "number", minimum: 0, maximum: 10, exclusiveMinimum: -1, exclusiveMaximum: 11 })],
    ["string bounds", prop({ type: "string", minLength: 1, maxLength: 3, pattern: "^[a-z]+$" })],
    ...["date", "date-time", "time", "email", "uri", "uuid", "ipv4", "ipv6", "hostname"].map((f): [string, unknown] => [
      `format ${f}`,
      prop({ type: "string", format: f }),
    ]),
    ["additionalProperties false", obj({ additionalProperties: false })],
    ["anyOf", prop({ anyOf: [{ type: "string" }, { type: "number" }] })],
  ];
  it.each(accepted)("accepts %s", (_name, schema) => {
    expect(checkOutputSchema(schema)).toEqual({ ok: true });
  });
});

describe("checkOutputSchema: rejected", () => {
  // biome-ignore format: keyword list
  const unsupported = [
    "$ref", "$defs", "definitions", "oneOf", "allOf", "not", "if", "then", "else", "patternProperties",
    "dependencies", "dependentRequired", "propertyNames", "contains", "uniqueItems", "multipleOf", "default",
  ];
  it.each(unsupported)("rejects the unsupported keyword %s with its path", (keyword) => {
    const issues = issuesOf(obj({ properties: { a: { type: "string", [keyword]: {} } } }));
    expect(issues).toContainEqual({ path: ["properties", "a", keyword], message: `unsupported keyword "${keyword}"` });
  });

  const rejected: [string, unknown, (string | number)[], string?][] = [
    ["non-object root", "x", [], "must be an object"],
    ["array root", [], []],
    ["root not type object", { type: "array", items: { type: "string" } }, ["type"], 'type "object"'],
    ["root without type", { properties: {} }, ["type"]],
    ["unknown type", prop({ type: "date" }), ["properties", "a", "type"]],
    ["empty type list", prop({ type: [] }), ["properties", "a", "type"]],
    ["repeated type", prop({ type: ["string", "string"] }), ["properties", "a", "type"], "repeat"],
    ["properties not an object", obj({ properties: [] }), ["properties"]],
    ["property not a schema", obj({ properties: { a: "string" } }), ["properties", "a"]],
    ["required undeclared", obj({ properties: { a: {} }, required: ["a", "b"] }), ["required", 1], '"b" is not declared'],
    ["required without properties", obj({ required: ["a"] }), ["required", 0]],
    ["required not an array", obj({ required: "a" }), ["required"]],
    ["required non-string", obj({ properties: { a: {} }, required: [1] }), ["required", 0]],
    ["required duplicate", obj({ properties: { a: {} }, required: ["a", "a"] }), ["required", 1], "twice"],
    ["additionalProperties schema", obj({ additionalProperties: { type: "string" } }), ["additionalProperties"]],
    ["tuple items", prop({ type: "array", items: [{ type: "string" }] }), ["properties", "a", "items"]],
    ["empty enum", prop({ enum: [] }), ["properties", "a", "enum"]],
    ["empty anyOf", prop({ anyOf: [] }), ["properties", "a", "anyOf"]],
    ["bad anyOf branch", prop({ anyOf: [{ type: "string", oneOf: [] }] }), ["properties", "a", "anyOf", 0, "oneOf"]],
    ["bad regex", prop({ type: "string", pattern: "([a-z" }), ["properties", "a", "pattern"], "regular expression"],
    ["pattern too long", prop({ pattern: "a".repeat(1001) }), ["properties", "a", "pattern"]],
    // RE2 syntax (linear-time matching): no backreferences, no lookaround.
    ["backreference", prop({ type: "string", pattern: "(a)\\1" }), ["properties", "a", "pattern"], "RE2"],
    ["lookahead", prop({ type: "string", pattern: "^(?=.*\\d).+$" }), ["properties", "a", "pattern"], "RE2"],
    ["negative lookahead", prop({ type: "string", pattern: "^(?!x)" }), ["properties", "a", "pattern"], "RE2"],
    ["lookbehind", prop({ type: "string", pattern: "(?<=a)b" }), ["properties", "a", "pattern"], "RE2"],
    [
      "pattern too costly",
      prop({ type: "string", pattern: "[a-z]{1,100}".repeat(20) }),
      ["properties", "a", "pattern"],
      "complex",
    ],
    ["unknown format", prop({ type: "string", format: "phone" }), ["properties", "a", "format"]],
    ["minimum not a number", prop({ minimum: "1" }), ["properties", "a", "minimum"]],
    ["minLength negative", prop({ minLength: -1 }), ["properties", "a", "minLength"]],
    ["maxItems fractional", prop({ maxItems: 1.5 }), ["properties", "a", "maxItems"]],
    ["minLength above maxLength", prop({ minLength: 5, maxLength: 2 }), ["properties", "a", "minLength"]],
    ["description not a string", obj({ description: 1 }), ["description"]],
  ];
  it.each(rejected)("rejects %s", (_name, schema, path, message) => {
    const issues = issuesOf(schema);
    const hit = issues.find((i) => JSON.stringify(i.path) === JSON.stringify(path));
    expect(hit, JSON.stringify(issues)).toBeDefined();
    if (message) expect(hit?.message).toContain(message);
  });

  const nest = (levels: number): Record<string, unknown> => {
    let schema: Record<string, unknown> = { type: "string" };
    for (let i = 1; i < levels; i++) schema = { type: "object", properties: { n: schema } };
    return schema;
  };
  it(`accepts nesting of exactly ${OUTPUT_SCHEMA_MAX_DEPTH} levels and rejects one more`, () => {
    expect(checkOutputSchema(nest(OUTPUT_SCHEMA_MAX_DEPTH + 1))).toMatchObject({ ok: false });
    const issues = issuesOf(nest(OUTPUT_SCHEMA_MAX_DEPTH + 1));
    expect(issues[0]?.message).toContain("nesting");
    expect(issues[0]?.path).toEqual(Array(OUTPUT_SCHEMA_MAX_DEPTH).fill(["properties", "n"]).flat());
    expect(checkOutputSchema(nest(OUTPUT_SCHEMA_MAX_DEPTH))).toEqual({ ok: true });
  });

  it(`accepts ${OUTPUT_SCHEMA_MAX_NODES} nodes and rejects more`, () => {
    const wide = (n: number) => obj({ properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, {}])) });
    expect(checkOutputSchema(wide(OUTPUT_SCHEMA_MAX_NODES - 1))).toEqual({ ok: true });
    const issues = issuesOf(wide(OUTPUT_SCHEMA_MAX_NODES));
    expect(issues).toEqual([{ path: [], message: `schema has more than ${OUTPUT_SCHEMA_MAX_NODES} nodes` }]);
  });
});

describe("validateAgainstOutputSchema", () => {
  const schema: OutputSchema = {
    type: "object",
    additionalProperties: false,
    required: ["price", "tags"],
    properties: {
      price: { type: "number", minimum: 0, exclusiveMaximum: 1000 },
      count: { type: "integer", maximum: 10, exclusiveMinimum: 0 },
      name: { type: "string", minLength: 2, maxLength: 5, pattern: "^[A-Z]" },
      tags: { type: "array", items: { enum: ["a", "b"] }, minItems: 1, maxItems: 2 },
      when: { type: "string", format: "date-time" },
      kind: { const: "x" },
      any: { anyOf: [{ type: "string", format: "email" }, { type: "null" }] },
      nested: { type: ["object", "null"], properties: { ok: { type: "boolean" } } },
    },
  };
  const good = { price: 9.5, tags: ["a"] };

  const cases: [string, unknown, (string | number)[][]][] = [
    ["minimal valid", good, []],
    [
      "full valid",
      { ...good, count: 3, name: "Abc", when: "2026-11-21T07:00:00Z", kind: "x", any: null, nested: { ok: true } },
      [],
    ],
    ["integer accepted as number", { ...good, price: 3 }, []],
    ["not an object", [1], [[]]],
    ["missing required", { price: 1 }, [["tags"]]],
    ["extra property", { ...good, extra: 1 }, [["extra"]]],
    ["wrong type", { ...good, price: "9" }, [["price"]]],
    ["minimum", { ...good, price: -1 }, [["price"]]],
    ["exclusiveMaximum", { ...good, price: 1000 }, [["price"]]],
    ["integer required", { ...good, count: 1.5 }, [["count"]]],
    ["exclusiveMinimum", { ...good, count: 0 }, [["count"]]],
    ["maximum", { ...good, count: 11 }, [["count"]]],
    ["minLength", { ...good, name: "A" }, [["name"]]],
    ["maxLength", { ...good, name: "Abcdef" }, [["name"]]],
    ["pattern", { ...good, name: "abc" }, [["name"]]],
    ["items enum", { ...good, tags: ["a", "z"] }, [["tags", 1]]],
    ["minItems", { ...good, tags: [] }, [["tags"]]],
    ["maxItems", { ...good, tags: ["a", "b", "a"] }, [["tags"]]],
    ["format date-time", { ...good, when: "yesterday" }, [["when"]]],
    ["const", { ...good, kind: "y" }, [["kind"]]],
    ["anyOf no match", { ...good, any: "not-an-email" }, [["any"]]],
    ["anyOf match", { ...good, any: "a@b.co" }, []],
    ["type list null", { ...good, nested: null }, []],
    ["nested wrong type", { ...good, nested: { ok: "yes" } }, [["nested", "ok"]]],
  ];
  it.each(cases)("%s", (_name, value, paths) => {
    expect(validateAgainstOutputSchema(value, schema).map((i) => i.path)).toEqual(paths);
  });

  const formats: [OutputSchema["format"], string, string][] = [
    ["date", "2024-02-29", "2023-02-29"],
    ["time", "23:59:59+02:00", "24:00:00Z"],
    ["email", "a.b@example.com", "a@b"],
    ["uri", "https://example.com/x", "example.com"],
    ["uuid", "123e4567-e89b-12d3-a456-426614174000", "123e4567"],
    ["ipv4", "192.168.0.1", "256.1.1.1"],
    ["ipv6", "::1", "1::2::3"],
    ["hostname", "api.example.com", "-bad.example"],
  ];
  it.each(formats)("format %s", (format, ok, bad) => {
    const s: OutputSchema = { type: "string", format };
    expect(validateAgainstOutputSchema(ok, s)).toEqual([]);
    expect(validateAgainstOutputSchema(bad, s)).toHaveLength(1);
  });
});

describe("validateAgainstOutputSchema: bounded pattern checks", () => {
  const audit: OutputSchema = { type: "object", properties: { a: { type: "string", pattern: "(\\d+)+!$" } } };

  it("the audit's catastrophic pattern on a 33-character result answers at once and correctly", () => {
    const started = performance.now();
    const issues = validateAgainstOutputSchema({ a: "1".repeat(33) }, audit);
    // A backtracking engine took 82 s here; RE2 is linear in the input.
    expect(performance.now() - started).toBeLessThan(500);
    expect(issues).toEqual([{ path: ["a"], message: "must match (\\d+)+!$" }]);
    expect(validateAgainstOutputSchema({ a: `${"1".repeat(32)}!` }, audit)).toEqual([]);
    expect(validateAgainstOutputSchema({ a: `x${"1".repeat(5000)}!` }, audit)).toEqual([]);
  });

  it("matches anywhere unless anchored, like JSON Schema", () => {
    const s: OutputSchema = { type: "string", pattern: "b+" };
    expect(validateAgainstOutputSchema("abbc", s)).toEqual([]);
    expect(validateAgainstOutputSchema("abbc", { type: "string", pattern: "^b+$" })).toHaveLength(1);
  });

  it("refuses to scan a string over the pattern input cap, and a result over the size cap", () => {
    const s: OutputSchema = { type: "string", pattern: "a" };
    expect(validateAgainstOutputSchema("a".repeat(OUTPUT_PATTERN_MAX_INPUT), s)).toEqual([]);
    const [long] = validateAgainstOutputSchema("a".repeat(OUTPUT_PATTERN_MAX_INPUT + 1), s);
    expect(long?.message).toContain(`longer than ${OUTPUT_PATTERN_MAX_INPUT}`);
    const big = { a: "x".repeat(OUTPUT_RESULT_MAX_BYTES) };
    expect(validateAgainstOutputSchema(big, { type: "object" })).toEqual([
      { path: [], message: expect.stringContaining(`over ${OUTPUT_RESULT_MAX_BYTES} bytes`) },
    ]);
  });

  it("stops pattern checks once the time budget is spent and says so", () => {
    let t = 0;
    const now = () => (t += 10);
    const s: OutputSchema = { type: "array", items: { type: "string", pattern: "^no$" } };
    const issues = validateAgainstOutputSchema(Array(100).fill("yes"), s, { budgetMs: 50, now });
    expect(issues.length).toBeLessThan(10);
    expect(issues.at(-1)?.message).toMatch(/in time/);
  });
});
