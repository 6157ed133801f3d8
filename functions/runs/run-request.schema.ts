import { z } from "@hono/zod-openapi";
import {
  OUTPUT_PATTERN_MAX_INPUT,
  OUTPUT_PATTERN_MAX_LENGTH,
  OUTPUT_PATTERN_MAX_PROGRAM,
  OUTPUT_RESULT_MAX_BYTES,
} from "./output-schema.ts";

/**
 * Spec 4.1: the shared body of POST /v1/automation/run, /run-async and /run-sse (and the base of
 * /run-batch). Bounds the spec leaves open are ours and documented here and in each field.
 */
export const GOAL_MAX_LENGTH = 10_000;
export const URL_MAX_LENGTH = 8192;
export const API_INTEGRATION_MAX_LENGTH = 200;
export const PROFILE_ID_MAX_LENGTH = 200;
export const MAX_STEPS_MIN = 1;
export const MAX_STEPS_MAX = 200;
export const MAX_DURATION_MIN = 10;
export const MAX_DURATION_MAX = 3600;
export const CREDENTIAL_IDS_MAX = 50;
export const BROWSER_PROFILES = ["lite", "stealth"] as const;
/** `standard` is the default behaviour; `strict` (beta) stops quickly on unexpected page state. */
export const AGENT_MODES = ["standard", "strict"] as const;
/** `standard` occurs in the spec; `none` hides the cursor overlay; `highlight` marks each target. */
export const CURSOR_STYLES = ["standard", "none", "highlight"] as const;
/** `managed` is the service's own proxy pool (the default); `custom` needs `custom_proxy`. */
export const PROXY_TYPES = ["managed", "custom"] as const;
export const PROXY_COUNTRIES = ["US", "GB", "CA", "DE", "FR", "JP", "AU"] as const;
/** A vault item reference: `cred:<connection_id>:<vault_name>:<item_id>`, each part non-empty, no `:`. */
export const CREDENTIAL_ITEM_ID = /^cred:[^:\s]+:[^:\s]+:[^:\s]+$/;

const canParse = (v: string): boolean => URL.canParse(v);
const protocolOf = (v: string): string | undefined => (canParse(v) ? new URL(v).protocol : undefined);

const runUrl = z
  .string()
  .min(1)
  .max(URL_MAX_LENGTH, `URLs are limited to ${URL_MAX_LENGTH} characters`)
  .refine(canParse, "must be an absolute URL including the scheme, e.g. https://example.com/")
  .refine((v) => !canParse(v) || /^https?:$/.test(protocolOf(v) ?? ""), "only http and https URLs are supported")
  .openapi({
    description: "Start page of the run: an absolute http(s) URL including the scheme.",
    example: "https://example.com/",
  });

const webhookUrl = z
  .string()
  .min(1)
  .max(URL_MAX_LENGTH, `URLs are limited to ${URL_MAX_LENGTH} characters`)
  .refine(canParse, "must be an absolute URL including the scheme, e.g. https://hooks.example.com/run")
  .refine((v) => !canParse(v) || protocolOf(v) === "https:", "webhook_url must use https")
  .refine((v) => {
    if (!canParse(v)) return true;
    const u = new URL(v);
    return u.username === "" && u.password === "";
  }, "webhook_url must not contain credentials (user:password@)")
  .openapi({
    description:
      "HTTPS URL notified when the run ends (spec 6.2). No user:password@ part. Must pass the address policy as written: a literal private, loopback, link-local or metadata address, an internal-only name (localhost, *.internal, a single label) or a refused port is a 400 naming webhook_url; a name is resolved at each delivery and only a public address is connected to.",
    example: "https://hooks.example.com/osprey",
  });

export const AgentConfigSchema = z
  .object({
    mode: z.enum(AGENT_MODES).optional().openapi({
      description: "standard (default) or strict (beta entitlement: stops the run quickly on unexpected page state).",
      example: "standard",
    }),
    cursor_style: z.enum(CURSOR_STYLES).optional().openapi({
      description: "How the agent's cursor is drawn in recordings: standard (default), none or highlight.",
      example: "standard",
    }),
    max_steps: z
      .number()
      .int()
      .min(MAX_STEPS_MIN)
      .max(MAX_STEPS_MAX)
      .optional()
      .openapi({
        description: `Step budget, ${MAX_STEPS_MIN} to ${MAX_STEPS_MAX}. Beta only: accounts without the beta entitlement get 403.`,
        example: 25,
      }),
    max_duration_seconds: z
      .number()
      .int()
      .min(MAX_DURATION_MIN)
      .max(MAX_DURATION_MAX)
      .optional()
      .openapi({
        description: `Run duration budget in seconds, ${MAX_DURATION_MIN} to ${MAX_DURATION_MAX}.`,
        example: 300,
      }),
  })
  .strict()
  .openapi("AgentConfig");

const captureFlag = (what: string, entitlement: string) =>
  z
    .boolean()
    .optional()
    .openapi({ description: `Capture ${what}; true needs the ${entitlement} entitlement (else 403).`, example: true });

export const CaptureConfigSchema = z
  .object({
    elements: captureFlag("interactive elements per step", "capture_elements"),
    snapshots: captureFlag("DOM snapshots per step", "capture_snapshots"),
    screenshots: captureFlag("screenshots per step", "capture_screenshots"),
    recording: captureFlag("a video recording of the run", "capture_recording"),
    html: captureFlag("page HTML per step", "capture_html"),
  })
  .strict()
  .openapi("CaptureConfig");

export const ProxyConfigSchema = z
  .object({
    type: z.enum(PROXY_TYPES).optional().openapi({
      description: "managed (default: the service's pool) or custom (needs the custom_proxy entitlement, else 403).",
      example: "managed",
    }),
    country_code: z.enum(PROXY_COUNTRIES).optional().openapi({
      description: "Exit country: one of US, GB, CA, DE, FR, JP, AU.",
      example: "US",
    }),
  })
  .strict()
  .openapi("ProxyConfig");

export const RunRequestSchema = z
  .object({
    url: runUrl,
    goal: z
      .string()
      .min(1)
      .max(GOAL_MAX_LENGTH, `goal is limited to ${GOAL_MAX_LENGTH} characters`)
      .refine((v) => v.trim().length > 0, "must not be whitespace only")
      .openapi({
        description: `What the agent should achieve, in natural language (1 to ${GOAL_MAX_LENGTH} characters, not blank).`,
        example: "Find the price of the cheapest plan",
      }),
    browser_profile: z.enum(BROWSER_PROFILES).optional().openapi({
      description: "lite (standard browser, default) or stealth (anti-detection browser).",
      example: "lite",
    }),
    api_integration: z
      .string()
      .min(1)
      .max(API_INTEGRATION_MAX_LENGTH)
      .optional()
      .openapi({
        description: `Name of the calling integration, for analytics (1 to ${API_INTEGRATION_MAX_LENGTH} characters).`,
        example: "zapier",
      }),
    agent_config: AgentConfigSchema.optional(),
    capture_config: CaptureConfigSchema.optional(),
    webhook_url: webhookUrl.optional(),
    use_vault: z.boolean().default(false).openapi({
      description:
        "Default false. When true, the account's enabled vault items (or exactly credential_item_ids) are available to the agent by reference: it fills a field with a credential without ever seeing the value, and only on the item's own domains.",
      example: false,
    }),
    credential_item_ids: z
      .array(z.string().min(1).regex(CREDENTIAL_ITEM_ID, "must have the form cred:<connection_id>:<vault_name>:<item_id>"))
      .min(1)
      .max(CREDENTIAL_IDS_MAX)
      .optional()
      .openapi({
        description: `1 to ${CREDENTIAL_IDS_MAX} vault item ids (cred:<connection_id>:<vault_name>:<item_id>); requires use_vault true. Omitted with use_vault true: all enabled items are used.`,
        example: ["cred:conn_1:Personal:item_9"],
      }),
    use_profile: z.boolean().optional().openapi({
      description: "Opt in to a Browser Context Profile: profile_id if given, else the default profile (400 when none is set).",
      example: true,
    }),
    profile_id: z.string().min(1).max(PROFILE_ID_MAX_LENGTH).optional().openapi({
      description: "Profile to use; requires use_profile true (sending it otherwise is a 400, never silently ignored).",
      example: "prof_abc123",
    }),
    proxy_config: ProxyConfigSchema.optional(),
    output_schema: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({
        description:
          "Structured-output schema: a documented subset of JSON Schema (see functions/runs/output-schema.ts); unsupported keywords are a 400; needs the output_schema entitlement (else 403). " +
          "`pattern` uses RE2 syntax (https://github.com/google/re2/wiki/Syntax), matched in linear time anywhere in the string unless anchored: " +
          `no backreferences (\\1) and no lookaround ((?=, (?!, (?<=, (?<!); code points are written \\x{41}, not \\u0041; at most ${OUTPUT_PATTERN_MAX_LENGTH} characters and RE2 program size ${OUTPUT_PATTERN_MAX_PROGRAM}. A pattern RE2 cannot compile is a 400 naming its path. ` +
          `A result over ${OUTPUT_RESULT_MAX_BYTES} bytes of JSON, or a string over ${OUTPUT_PATTERN_MAX_INPUT} characters tested against a pattern, does not match the schema.`,
        example: { type: "object", properties: { price: { type: "number" } }, required: ["price"] },
      }),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.credential_item_ids !== undefined && body.use_vault !== true) {
      ctx.addIssue({ code: "custom", path: ["credential_item_ids"], message: "credential_item_ids requires use_vault true" });
    }
    if (body.profile_id !== undefined && body.use_profile !== true) {
      ctx.addIssue({ code: "custom", path: ["profile_id"], message: "profile_id requires use_profile true" });
    }
  })
  .openapi("RunRequest");

export type RunRequest = z.infer<typeof RunRequestSchema>;

/**
 * The request a run was accepted with, read back from its row: parsed with the schema that
 * accepted it (typed, defaults applied), never cast. A stored request that no longer parses (a
 * schema change without a data migration) is a defect to surface, not one to guess around.
 */
export function storedRunRequest(row: { id: string; request: unknown }): RunRequest {
  const parsed = RunRequestSchema.safeParse(row.request);
  if (parsed.success) return parsed.data;
  const where = parsed.error.issues.map((i) => i.path.join(".") || "(root)").join(", ");
  throw new Error(`the stored request of run ${row.id} does not match the run request schema (${where})`);
}

/**
 * The few fields the readers of a run take from its stored request (the run on the wire, the
 * webhook, the recording route). Unlike the worker, which acts on the whole request and must not
 * guess (storedRunRequest), a reader must answer for every row: GET /v1/runs/{id} never fails
 * because a request was stored under an older schema. So each field is read on its own and one
 * that does not parse is left empty, without costing the others.
 */
const RunRequestViewSchema = z
  .object({
    url: z.string().catch(""),
    goal: z.string().catch(""),
    webhook_url: z.string().min(1).optional().catch(undefined),
    capture_config: z
      .object({ recording: z.boolean().optional().catch(undefined) })
      .optional()
      .catch(undefined),
  })
  .catch({ url: "", goal: "" });

export interface RunRequestView {
  url: string;
  goal: string;
  /** Null when the run has none (no webhook is sent). */
  webhookUrl: string | null;
  /** capture_config.recording. */
  recording: boolean;
}

export function runRequestView(row: { request: unknown }): RunRequestView {
  const view = RunRequestViewSchema.parse(row.request);
  return {
    url: view.url,
    goal: view.goal,
    webhookUrl: view.webhook_url ?? null,
    recording: view.capture_config?.recording === true,
  };
}
