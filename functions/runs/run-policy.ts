import type { Entitlement } from "../../schema/plans.ts";
import { AppError, type ErrorDetail } from "../lib/app-error.ts";
import type { AccountView } from "../services/account.service.ts";
import { hasEntitlement } from "../services/account.service.ts";
import { checkOutputSchema, type SchemaIssue } from "./output-schema.ts";
import type { RunRequest } from "./run-request.schema.ts";

type RunAccount = Pick<AccountView, "entitlements" | "creditBalance">;

const forbid = (message: string): never => {
  throw new AppError("FORBIDDEN", message);
};

const need = (account: RunAccount, e: Entitlement, what: string): void => {
  if (!hasEntitlement(account, e)) forbid(`${what} requires the "${e}" entitlement, which this account does not have.`);
};

/** capture_config flag → the entitlement it needs (spec 4.1; schema/plans.ts). */
export const CAPTURE_ENTITLEMENTS = {
  elements: "capture_elements",
  snapshots: "capture_snapshots",
  screenshots: "capture_screenshots",
  recording: "capture_recording",
  html: "capture_html",
} as const satisfies Record<string, Entitlement>;

/**
 * Spec 4.1, 7.1, 9.4: request-time 403 FORBIDDEN checks of a schema-valid run body, in this order:
 * beta features (agent_config.max_steps, agent_config.mode strict), capture capabilities (only flags
 * set to true count), custom proxy, output_schema, then remaining credits. The first failure
 * throws; its message names the failed condition. Requests without max_steps are unaffected.
 */
export function checkRunEntitlements(account: RunAccount, body: RunRequest): void {
  const agent = body.agent_config;
  if (agent?.max_steps !== undefined) need(account, "beta", "agent_config.max_steps (a beta feature)");
  if (agent?.mode === "strict") need(account, "beta", 'agent_config.mode "strict" (a beta feature)');
  const capture = body.capture_config ?? {};
  for (const [flag, entitlement] of Object.entries(CAPTURE_ENTITLEMENTS)) {
    if (capture[flag as keyof typeof CAPTURE_ENTITLEMENTS] === true) {
      need(account, entitlement, `capture_config.${flag}`);
    }
  }
  if (body.proxy_config?.type === "custom") need(account, "custom_proxy", 'proxy_config.type "custom"');
  if (body.output_schema !== undefined) need(account, "output_schema", "output_schema");
  if (account.creditBalance <= 0) forbid("This account has no remaining credits; add credits to start a run.");
}

/** output_schema issues → spec 7.1 `details` entries, shaped like functions/http/validation.ts output. */
export function outputSchemaIssuesToDetails(issues: readonly SchemaIssue[]): ErrorDetail[] {
  return issues.map((issue) => ({
    code: "invalid_output_schema",
    path: ["output_schema", ...issue.path],
    message: issue.message,
    location: "body",
  }));
}

/** Throws 400 INVALID_INPUT with details when `output_schema` (if present) is outside the subset. */
export function assertValidOutputSchema(body: Pick<RunRequest, "output_schema">): void {
  if (body.output_schema === undefined) return;
  const result = checkOutputSchema(body.output_schema);
  if (result.ok) return;
  const details = outputSchemaIssuesToDetails(result.issues);
  const first = details[0];
  const where = first ? ` at body.${first.path.join(".")}: ${first.message}` : "";
  throw new AppError("INVALID_INPUT", `Invalid output_schema${where}`, { details });
}
