import { describe, expect, it } from "vitest";
import {
  GOAL_MAX_LENGTH,
  MAX_DURATION_MAX,
  MAX_DURATION_MIN,
  MAX_STEPS_MAX,
  RunRequestSchema,
} from "../../functions/runs/run-request.schema.ts";

const base = { url: "https://example.com/", goal: "Find the price" };
const CRED = "cred:conn_1:Personal:item_9";

type Case = [name: string, patch: Record<string, unknown>, path?: (string | number)[]];

/** Each rule of spec 4.1: a body that breaks it (and the issue path zod reports). */
const failing: Case[] = [
  ["url missing", { url: undefined }, ["url"]],
  ["url without scheme", { url: "example.com/page" }, ["url"]],
  ["url relative", { url: "/page" }, ["url"]],
  ["url ftp scheme", { url: "ftp://example.com/" }, ["url"]],
  ["url javascript scheme", { url: "javascript:alert(1)" }, ["url"]],
  ["url too long", { url: `https://example.com/${"a".repeat(8200)}` }, ["url"]],
  ["goal missing", { goal: undefined }, ["goal"]],
  ["goal empty", { goal: "" }, ["goal"]],
  ["goal whitespace only", { goal: "   \n\t" }, ["goal"]],
  ["goal too long", { goal: "a".repeat(GOAL_MAX_LENGTH + 1) }, ["goal"]],
  ["goal not a string", { goal: 42 }, ["goal"]],
  ["browser_profile unknown", { browser_profile: "chrome" }, ["browser_profile"]],
  ["api_integration empty", { api_integration: "" }, ["api_integration"]],
  ["api_integration too long", { api_integration: "x".repeat(201) }, ["api_integration"]],
  ["agent_config.mode unknown", { agent_config: { mode: "fast" } }, ["agent_config", "mode"]],
  ["agent_config.cursor_style unknown", { agent_config: { cursor_style: "pointer" } }, ["agent_config", "cursor_style"]],
  ["agent_config.max_steps 0", { agent_config: { max_steps: 0 } }, ["agent_config", "max_steps"]],
  ["agent_config.max_steps above max", { agent_config: { max_steps: MAX_STEPS_MAX + 1 } }, ["agent_config", "max_steps"]],
  ["agent_config.max_steps fractional", { agent_config: { max_steps: 2.5 } }, ["agent_config", "max_steps"]],
  [
    "agent_config.max_duration_seconds below min",
    { agent_config: { max_duration_seconds: MAX_DURATION_MIN - 1 } },
    ["agent_config", "max_duration_seconds"],
  ],
  [
    "agent_config.max_duration_seconds above max",
    { agent_config: { max_duration_seconds: MAX_DURATION_MAX + 1 } },
    ["agent_config", "max_duration_seconds"],
  ],
  ["agent_config unknown key", { agent_config: { temperature: 1 } }, ["agent_config"]],
  ["capture_config non-boolean", { capture_config: { screenshots: "yes" } }, ["capture_config", "screenshots"]],
  ["capture_config unknown key", { capture_config: { video: true } }, ["capture_config"]],
  ["webhook_url http", { webhook_url: "http://hooks.example.com/x" }, ["webhook_url"]],
  ["webhook_url not a URL", { webhook_url: "hooks.example.com" }, ["webhook_url"]],
  ["webhook_url with userinfo", { webhook_url: "https://user:pw@hooks.example.com/x" }, ["webhook_url"]],
  ["webhook_url with username only", { webhook_url: "https://user@hooks.example.com/x" }, ["webhook_url"]],
  ["use_vault non-boolean", { use_vault: "true" }, ["use_vault"]],
  ["credential_item_ids without use_vault", { credential_item_ids: [CRED] }, ["credential_item_ids"]],
  ["credential_item_ids with use_vault false", { use_vault: false, credential_item_ids: [CRED] }, ["credential_item_ids"]],
  ["credential_item_ids empty", { use_vault: true, credential_item_ids: [] }, ["credential_item_ids"]],
  ["credential_item_ids empty entry", { use_vault: true, credential_item_ids: [""] }, ["credential_item_ids", 0]],
  ["credential_item_ids malformed entry", { use_vault: true, credential_item_ids: [CRED, "item_9"] }, ["credential_item_ids", 1]],
  [
    "credential_item_ids missing part",
    { use_vault: true, credential_item_ids: ["cred:conn_1::item_9"] },
    ["credential_item_ids", 0],
  ],
  ["use_profile non-boolean", { use_profile: 1 }, ["use_profile"]],
  ["profile_id empty", { use_profile: true, profile_id: "" }, ["profile_id"]],
  ["profile_id without use_profile", { profile_id: "prof_1" }, ["profile_id"]],
  ["profile_id with use_profile false", { use_profile: false, profile_id: "prof_1" }, ["profile_id"]],
  ["proxy_config.type unknown", { proxy_config: { type: "residential" } }, ["proxy_config", "type"]],
  ["proxy_config.country_code unsupported", { proxy_config: { country_code: "BR" } }, ["proxy_config", "country_code"]],
  ["proxy_config.country_code lowercase", { proxy_config: { country_code: "us" } }, ["proxy_config", "country_code"]],
  ["output_schema not an object", { output_schema: "string" }, ["output_schema"]],
  ["output_schema array", { output_schema: [] }, ["output_schema"]],
  ["unknown top-level field", { callback: "https://x.example" }, []],
];

/** Each rule with a body that satisfies it. */
const passing: [name: string, patch: Record<string, unknown>][] = [
  ["minimal body", {}],
  ["http url", { url: "http://example.com/a?b=c" }],
  ["goal of one character", { goal: "x" }],
  ["goal at the max", { goal: "a".repeat(GOAL_MAX_LENGTH) }],
  ["browser_profile lite", { browser_profile: "lite" }],
  ["browser_profile stealth", { browser_profile: "stealth" }],
  ["api_integration", { api_integration: "zapier" }],
  ["agent_config full", { agent_config: { mode: "strict", cursor_style: "standard", max_steps: 1 } }],
  ["agent_config max bounds", { agent_config: { max_steps: MAX_STEPS_MAX, max_duration_seconds: MAX_DURATION_MAX } }],
  ["agent_config min duration", { agent_config: { mode: "standard", max_duration_seconds: MAX_DURATION_MIN } }],
  [
    "capture_config all flags",
    { capture_config: { elements: true, snapshots: false, screenshots: true, recording: false, html: true } },
  ],
  ["webhook_url https", { webhook_url: "https://hooks.example.com/osprey?x=1" }],
  ["use_vault true alone", { use_vault: true }],
  ["credential_item_ids with use_vault", { use_vault: true, credential_item_ids: [CRED, "cred:c2:Work:i3"] }],
  ["use_profile alone", { use_profile: true }],
  ["use_profile false", { use_profile: false }],
  ["profile_id with use_profile", { use_profile: true, profile_id: "prof_abc" }],
  ["proxy_config custom", { proxy_config: { type: "custom", country_code: "DE" } }],
  ["proxy_config managed", { proxy_config: { type: "managed" } }],
  ...(["US", "GB", "CA", "DE", "FR", "JP", "AU"] as const).map((c): [string, Record<string, unknown>] => [
    `country ${c}`,
    { proxy_config: { country_code: c } },
  ]),
  ["output_schema object", { output_schema: { type: "object", properties: { a: { type: "string" } } } }],
];

describe("RunRequestSchema (spec 4.1)", () => {
  it.each(failing)("rejects: %s", (_name, patch, path) => {
    const result = RunRequestSchema.safeParse({ ...base, ...patch });
    expect(result.success).toBe(false);
    if (path) expect(result.error?.issues.map((i) => i.path)).toContainEqual(path);
  });

  it.each(passing)("accepts: %s", (_name, patch) => {
    const result = RunRequestSchema.safeParse({ ...base, ...patch });
    expect(result.error?.issues).toBeUndefined();
    expect(result.success).toBe(true);
  });

  it("defaults use_vault to false and keeps omitted options absent", () => {
    const result = RunRequestSchema.parse(base);
    expect(result).toEqual({ ...base, use_vault: false });
  });

  it("does not echo secrets in webhook_url issues (message names the rule)", () => {
    const result = RunRequestSchema.safeParse({ ...base, webhook_url: "https://u:secret@h.example.com/" });
    const messages = result.error?.issues.map((i) => i.message) ?? [];
    expect(messages.join(" ")).toContain("credentials");
    expect(messages.join(" ")).not.toContain("secret");
  });
});
