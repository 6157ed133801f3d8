import type { AllowedHost } from "../config/config.ts";
import { AppError } from "../lib/app-error.ts";
import { checkUrl } from "../net/address-policy.ts";
import type { AuthContext } from "../services/api-key.service.ts";
import { assertValidOutputSchema, checkRunEntitlements } from "./run-policy.ts";
import type { RunRequest } from "./run-request.schema.ts";

/**
 * Admission of a run request (spec 4.1/7.1): the checks a request must pass before a run row is
 * written, and the batch helper that names the failing child.
 */

export function refuseUnavailableFeatures(body: RunRequest, deps: Pick<AdmissionDeps, "vault" | "profiles">): void {
  if (body.use_vault && !deps.vault) {
    // A deployment whose API cannot read the vault (no database-backed vault wired): refused,
    // never silently ignored.
    throw new AppError(
      "FORBIDDEN",
      "use_vault is not available on this deployment: its API has no credential vault; send use_vault false.",
    );
  }
  if (body.use_profile && !deps.profiles) {
    // A deployment without profile storage: no profile exists, as 4.1 answers for a missing one.
    if (body.profile_id !== undefined) throw profileNotFound(body.profile_id);
    throw noDefaultProfile();
  }
  if (body.proxy_config) {
    throw new AppError(
      "FORBIDDEN",
      "proxy_config cannot be honoured: this server has no proxy pool configured. Remove proxy_config to run from the server's own address.",
    );
  }
}

/**
 * Runs a check of batch child `index`; an AppError it throws is rethrown naming the child: details
 * paths gain the ["runs", index] prefix the zod validation of the batch body uses (runs.<i>.…).
 */
export function inChild(index: number, check: () => void): void {
  try {
    check();
  } catch (err) {
    throw namingChild(err, index);
  }
}

/** inChild for an asynchronous check (one that reads the database). */
export async function inChildAsync(index: number, check: () => Promise<void>): Promise<void> {
  try {
    await check();
  } catch (err) {
    throw namingChild(err, index);
  }
}

function namingChild(err: unknown, index: number): unknown {
  if (!(err instanceof AppError)) return err;
  const message = err.message.includes(" at body.")
    ? err.message.replace(" at body.", ` at body.runs.${index}.`)
    : `runs.${index}: ${err.message}`;
  return new AppError(err.code, message, {
    status: err.status as never,
    headers: err.headers,
    cause: err.cause,
    ...(err.details ? { details: err.details.map((d) => ({ ...d, path: ["runs", index, ...d.path] })) } : {}),
  });
}

/**
 * 400 INVALID_INPUT naming `webhook_url` when the address policy refuses it as written: a literal
 * private, loopback, link-local or metadata address, an internal-only name (`localhost`, `*.internal`,
 * a single label), a refused port. No DNS here: admission stays free of network calls, and a
 * name's answers can change before the run ends anyway; the dispatcher resolves the name at each
 * delivery and connects only to the public address it checked (containers/webhooks/send.ts).
 * OSPREY_ALLOW_PRIVATE_HOSTS exempts hosts here as it does at delivery.
 */
export function assertWebhookUrlAllowed(body: Pick<RunRequest, "webhook_url">, allow: AllowedHost[]): void {
  if (body.webhook_url === undefined) return;
  const verdict = checkUrl(body.webhook_url, allow);
  if (verdict.ok) return;
  const message = `webhook_url is not allowed: ${verdict.reason}; webhooks are delivered to public addresses only`;
  throw new AppError("INVALID_INPUT", `Invalid webhook_url at body.webhook_url: ${verdict.reason}`, {
    details: [{ code: "custom", path: ["webhook_url"], message, location: "body" }],
  });
}

/**
 * What admission reads of the server's set-up; the run service passes its own deps object, read at
 * call time. Declared here, not borrowed from the service, so admission stays below the service.
 */
export interface AdmissionDeps {
  /** Environment variables still to set before a model can be used; non-empty refuses runs with 403. */
  modelMissing: string[];
  /** OSPREY_ALLOW_PRIVATE_HOSTS: start URLs and webhook URLs on these hosts pass the address policy. */
  allowPrivateHosts: AllowedHost[];
  /** Whether use_vault can be honoured (the API can check the account's vault items); false refuses it with 403. */
  vault: boolean;
  /** Whether Browser Context Profiles are stored here; false answers use_profile as for a profile that does not exist. */
  profiles: boolean;
}

export const profileNotFound = (id: string) => new AppError("NOT_FOUND", `Browser Context Profile ${id} was not found.`);

/** use_profile true, no profile_id, and the account has no default profile (spec 4.1: 400). */
export const noDefaultProfile = () =>
  new AppError(
    "INVALID_INPUT",
    "use_profile is true but no default Browser Context Profile is set for this account (POST /v1/profiles with is_default true, or give profile_id).",
    {
      details: [
        { code: "custom", path: ["use_profile"], message: "no default Browser Context Profile is set", location: "body" },
      ],
    },
  );

/** The request-time checks of spec 4.1/7.1, in the order a caller can act on them. */
export function admitRun(deps: AdmissionDeps, auth: AuthContext, body: RunRequest): void {
  assertValidOutputSchema(body);
  assertWebhookUrlAllowed(body, deps.allowPrivateHosts);
  checkRunEntitlements(auth.account, body);
  if (deps.modelMissing.length > 0) {
    throw new AppError(
      "FORBIDDEN",
      `The automation agent has no model configured on this server. Set ${deps.modelMissing.join(", ")} (OSPREY_LLM_PROVIDER is openai or anthropic; OSPREY_LLM_BASE_URL points at a compatible server) and restart.`,
    );
  }
  refuseUnavailableFeatures(body, deps);
  const target = checkUrl(body.url, deps.allowPrivateHosts);
  if (!target.ok) {
    throw new AppError(
      "FORBIDDEN",
      `The run's url is blocked by policy: ${target.reason}. Runs may only visit public addresses.`,
    );
  }
}
