import { describe, expect, it } from "vitest";
import { AppError } from "../../functions/lib/app-error.ts";
import { assertValidOutputSchema, checkRunEntitlements, outputSchemaIssuesToDetails } from "../../functions/runs/run-policy.ts";
import { type RunRequest, RunRequestSchema } from "../../functions/runs/run-request.schema.ts";
import { ENTITLEMENTS, type Entitlement, PLAN_DEFINITIONS } from "../../schema/plans.ts";

const body = (extra: Record<string, unknown> = {}): RunRequest =>
  RunRequestSchema.parse({ url: "https://example.com/", goal: "Find the price", ...extra });
const account = (entitlements: readonly Entitlement[], creditBalance = 100) => ({
  entitlements: [...entitlements],
  creditBalance,
});
const ALL = ENTITLEMENTS;
const without = (e: Entitlement) => ALL.filter((x) => x !== e);

function refusal(fn: () => void): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error("expected an AppError");
}

describe("checkRunEntitlements: 403 conditions (spec 4.1, 7.1, 9.4)", () => {
  const cases: [string, Entitlement, Record<string, unknown>, string][] = [
    ["max_steps without beta", "beta", { agent_config: { max_steps: 10 } }, "agent_config.max_steps"],
    ["strict mode without beta", "beta", { agent_config: { mode: "strict" } }, 'agent_config.mode "strict"'],
    ["capture elements", "capture_elements", { capture_config: { elements: true } }, "capture_config.elements"],
    ["capture snapshots", "capture_snapshots", { capture_config: { snapshots: true } }, "capture_config.snapshots"],
    ["capture screenshots", "capture_screenshots", { capture_config: { screenshots: true } }, "capture_config.screenshots"],
    ["capture recording", "capture_recording", { capture_config: { recording: true } }, "capture_config.recording"],
    ["capture html", "capture_html", { capture_config: { html: true } }, "capture_config.html"],
    ["custom proxy", "custom_proxy", { proxy_config: { type: "custom" } }, 'proxy_config.type "custom"'],
    ["output_schema", "output_schema", { output_schema: { type: "object" } }, "output_schema"],
  ];

  it.each(cases)("%s → 403 naming the condition", (_name, missing, extra, what) => {
    const err = refusal(() => checkRunEntitlements(account(without(missing)), body(extra)));
    expect(err.code).toBe("FORBIDDEN");
    expect(err.status).toBe(403);
    expect(err.message).toContain(what);
    expect(err.message).toContain(`"${missing}"`);
  });

  it.each(cases)("%s → allowed with the entitlement", (_name, _missing, extra) => {
    expect(() => checkRunEntitlements(account(ALL), body(extra))).not.toThrow();
  });

  it.each([0, -5])("no remaining credits (balance %d) → 403", (balance) => {
    const err = refusal(() => checkRunEntitlements(account(ALL, balance), body()));
    expect(err.code).toBe("FORBIDDEN");
    expect(err.status).toBe(403);
    expect(err.message).toContain("no remaining credits");
  });

  it("a positive balance is enough", () => {
    expect(() => checkRunEntitlements(account([], 1), body())).not.toThrow();
  });

  it("requests without max_steps are unaffected for non-beta accounts", () => {
    const plain = body({ agent_config: { mode: "standard", cursor_style: "standard", max_duration_seconds: 60 } });
    for (const plan of Object.values(PLAN_DEFINITIONS)) {
      expect(plan.entitlements).not.toContain("beta");
      expect(() => checkRunEntitlements(account(plan.entitlements), plain)).not.toThrow();
    }
    expect(() => checkRunEntitlements(account([]), body())).not.toThrow();
  });

  it("capture flags set to false never need the entitlement", () => {
    const off = body({
      capture_config: { elements: false, snapshots: false, screenshots: false, recording: false, html: false },
    });
    expect(() => checkRunEntitlements(account([]), off)).not.toThrow();
  });

  it("managed proxy needs no entitlement", () => {
    expect(() =>
      checkRunEntitlements(account([]), body({ proxy_config: { type: "managed", country_code: "FR" } })),
    ).not.toThrow();
  });

  it("free plan: screenshots allowed, recording refused", () => {
    const free = account(PLAN_DEFINITIONS.free.entitlements);
    expect(() => checkRunEntitlements(free, body({ capture_config: { screenshots: true } }))).not.toThrow();
    const err = refusal(() => checkRunEntitlements(free, body({ capture_config: { screenshots: true, recording: true } })));
    expect(err.message).toContain("capture_recording");
  });

  it("entitlement failures are reported before the credit check", () => {
    const err = refusal(() => checkRunEntitlements(account([], 0), body({ agent_config: { max_steps: 5 } })));
    expect(err.message).toContain("beta");
  });
});

describe("output_schema 400 details", () => {
  it("maps issues to validation.ts-shaped details", () => {
    expect(outputSchemaIssuesToDetails([{ path: ["properties", "a", "$ref"], message: 'unsupported keyword "$ref"' }])).toEqual([
      {
        code: "invalid_output_schema",
        path: ["output_schema", "properties", "a", "$ref"],
        message: 'unsupported keyword "$ref"',
        location: "body",
      },
    ]);
  });

  it("assertValidOutputSchema throws 400 INVALID_INPUT with every issue", () => {
    const err = refusal(() =>
      assertValidOutputSchema({ output_schema: { type: "object", oneOf: [], properties: { a: { pattern: "(" } } } }),
    );
    expect(err.code).toBe("INVALID_INPUT");
    expect(err.status).toBe(400);
    expect(err.message).toContain("output_schema.oneOf");
    expect(err.details?.map((d) => d.path)).toEqual([
      ["output_schema", "oneOf"],
      ["output_schema", "properties", "a", "pattern"],
    ]);
    expect(err.details?.every((d) => d.code === "invalid_output_schema" && d.location === "body")).toBe(true);
  });

  it("passes a valid schema and an absent one", () => {
    expect(() => assertValidOutputSchema({ output_schema: { type: "object" } })).not.toThrow();
    expect(() => assertValidOutputSchema({})).not.toThrow();
  });
});
