import { parseArgs } from "node:util";
import type { Services } from "../../../functions/services/index.ts";
import { API_KEY_SCOPES, type ApiKeyScope } from "../../../schema/api-keys.ts";
import { PLAN_DEFINITIONS, PLANS, type Plan } from "../../../schema/plans.ts";
import { isoOrDash, parseInteger, splitList, table, UsageError } from "../format.ts";

type Out = (line: string) => void;

export async function keysCommand(services: Services, args: string[], out: Out): Promise<void> {
  const [sub, ...rest] = args;
  if (sub === "create") return create(services, rest, out);
  if (sub === "list") return list(services, rest, out);
  if (sub === "revoke") return revoke(services, rest, out);
  throw new UsageError(sub ? `unknown keys command "${sub}"` : "keys needs a command");
}

async function create(services: Services, args: string[], out: Out): Promise<void> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      account: { type: "string" },
      plan: { type: "string" },
      entitlements: { type: "string", multiple: true },
      credits: { type: "string" },
      name: { type: "string" },
      scope: { type: "string" },
      "sub-user": { type: "string" },
      "expires-in-days": { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  if (values.account && (values.plan || values.entitlements || values.credits !== undefined)) {
    throw new UsageError("--plan, --entitlements and --credits create a new account; they cannot be combined with --account");
  }
  if (values.plan && !(PLANS as readonly string[]).includes(values.plan)) {
    throw new UsageError(`--plan must be one of ${PLANS.join(", ")}`);
  }
  if (values.scope && !(API_KEY_SCOPES as readonly string[]).includes(values.scope)) {
    throw new UsageError(`--scope must be one of ${API_KEY_SCOPES.join(", ")}`);
  }
  if (values["sub-user"] !== undefined && values["sub-user"].trim() === "") throw new UsageError("--sub-user must not be empty");
  let expiresAt: Date | null = null;
  if (values["expires-in-days"] !== undefined) {
    const days = parseInteger("--expires-in-days", values["expires-in-days"]);
    if (days < 1) throw new UsageError("--expires-in-days must be at least 1");
    expiresAt = new Date(Date.now() + days * 86_400_000);
  }
  let credits: number | undefined;
  if (values.credits !== undefined) {
    credits = parseInteger("--credits", values.credits);
    if (credits < 0) throw new UsageError("--credits must be 0 or more");
  }
  const plan = (values.plan ?? "free") as Plan;
  // A new account starts with its plan's credits so it can run at once (README, "Accounts and keys").
  const account = values.account
    ? await services.accounts.get(values.account)
    : await services.accounts.create({
        plan,
        entitlements: splitList(values.entitlements ?? []),
        credits: credits ?? PLAN_DEFINITIONS[plan].monthlyCredits,
      });
  const { key, row } = await services.apiKeys.create({
    accountId: account.id,
    name: values.name ?? null,
    scope: (values.scope ?? "api") as ApiKeyScope,
    subUserId: values["sub-user"] ?? null,
    expiresAt,
  });
  if (values.json) {
    out(
      JSON.stringify({
        key,
        key_id: row.id,
        prefix: row.prefix,
        account_id: account.id,
        plan: account.plan,
        entitlements: account.entitlements,
        credit_balance: account.creditBalance,
        scope: row.scope,
        sub_user_id: row.subUserId,
        expires_at: row.expiresAt?.toISOString() ?? null,
      }),
    );
    return;
  }
  out(
    values.account
      ? `Created key ${row.id} for account ${account.id} (plan ${account.plan}).`
      : `Created key ${row.id} for a new account ${account.id} (plan ${account.plan}, ${account.creditBalance} credits).`,
  );
  out("The key is shown this once and cannot be recovered; store it now:");
  out("");
  out(`    ${key}`);
}

async function list(services: Services, args: string[], out: Out): Promise<void> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: { account: { type: "string" }, json: { type: "boolean", default: false } },
  });
  if (values.account) await services.accounts.get(values.account);
  const rows = await services.apiKeys.listAll(values.account);
  if (values.json) {
    out(
      JSON.stringify(
        rows.map((k) => ({
          id: k.id,
          prefix: k.prefix,
          account_id: k.accountId,
          name: k.name,
          scope: k.scope,
          sub_user_id: k.subUserId,
          created_at: k.createdAt.toISOString(),
          last_used_at: k.lastUsedAt?.toISOString() ?? null,
          expires_at: k.expiresAt?.toISOString() ?? null,
          revoked_at: k.revokedAt?.toISOString() ?? null,
        })),
      ),
    );
    return;
  }
  if (rows.length === 0) return out("No API keys.");
  out(
    table(
      ["ID", "PREFIX", "ACCOUNT", "SCOPE", "SUB-USER", "CREATED", "LAST USED", "STATE"],
      rows.map((k) => [
        k.id,
        k.prefix,
        k.accountId,
        k.scope,
        k.subUserId ?? "-",
        isoOrDash(k.createdAt),
        isoOrDash(k.lastUsedAt),
        k.revokedAt ? "revoked" : k.expiresAt && k.expiresAt <= new Date() ? "expired" : "active",
      ]),
    ),
  );
}

async function revoke(services: Services, args: string[], out: Out): Promise<void> {
  const { positionals } = parseArgs({ args, strict: true, allowPositionals: true, options: {} });
  if (positionals.length !== 1 || !positionals[0]) throw new UsageError("keys revoke takes exactly one key id or prefix");
  const target = positionals[0];
  const result = await services.apiKeys.revoke(target);
  if (!result) throw new UsageError(`no API key has the id or prefix "${target}"`);
  out(
    result.alreadyRevoked
      ? `Key ${result.row.id} (${result.row.prefix}) was already revoked.`
      : `Revoked key ${result.row.id} (${result.row.prefix}).`,
  );
}
