import { type ParseArgsOptionsConfig, parseArgs } from "node:util";
import type { AccountView } from "../../../functions/services/account.service.ts";
import type { Services } from "../../../functions/services/index.ts";
import { PLANS, type Plan } from "../../../schema/plans.ts";
import { parseInteger, parseLimit, splitList, table, UsageError } from "../format.ts";

type Out = (line: string) => void;

export function accountToJson(a: AccountView) {
  return {
    id: a.id,
    name: a.name,
    plan: a.plan,
    entitlements: a.entitlements,
    entitlements_granted: a.entitlementOverrides.granted,
    entitlements_revoked: a.entitlementOverrides.revoked,
    limits: { search_rpm: a.limits.searchRpm, fetch_upm: a.limits.fetchUpm, max_pending_runs: a.limits.maxPendingRuns },
    custom_limits: {
      search_rpm: a.customLimits.searchRpm,
      fetch_upm: a.customLimits.fetchUpm,
      max_pending_runs: a.customLimits.maxPendingRuns,
    },
    credit_balance: a.creditBalance,
    suspended: a.suspended,
    created_at: a.createdAt.toISOString(),
  };
}

function describe(a: AccountView): string {
  const custom = (v: number | null) => (v === null ? "" : " (custom)");
  return [
    `account        ${a.id}${a.name ? ` (${a.name})` : ""}${a.suspended ? "  SUSPENDED" : ""}`,
    `plan           ${a.plan}`,
    `entitlements   ${a.entitlements.join(", ") || "-"}`,
    `search rpm     ${a.limits.searchRpm}${custom(a.customLimits.searchRpm)}`,
    `fetch upm      ${a.limits.fetchUpm}${custom(a.customLimits.fetchUpm)}`,
    `pending runs   ${a.limits.maxPendingRuns}${custom(a.customLimits.maxPendingRuns)}`,
    `credits        ${a.creditBalance}`,
  ].join("\n");
}

/** parseArgs reads "-20" as an option: attach a negative number to the option before it ("--add=-20"). */
function attachNegativeValues(args: string[], options: string[]): string[] {
  const out: string[] = [];
  for (const arg of args) {
    const prev = out.at(-1);
    if (prev !== undefined && options.includes(prev) && /^-\d+$/.test(arg)) out[out.length - 1] = `${prev}=${arg}`;
    else out.push(arg);
  }
  return out;
}

/** The positional arguments of a subcommand, exactly `count` of them. */
function positionals(args: string[], count: number, usage: string, options: ParseArgsOptionsConfig = {}) {
  const parsed = parseArgs({ args, strict: true, allowPositionals: true, options });
  if (parsed.positionals.length !== count) throw new UsageError(`usage: ${usage}`);
  return parsed;
}

/** The services the accounts commands use. */
export type AccountsCommandServices = Services;

export async function accountsCommand(services: AccountsCommandServices, args: string[], out: Out): Promise<void> {
  const [sub, ...rest] = args;
  switch (sub) {
    case "list": {
      const { values } = parseArgs({ args: rest, strict: true, options: { json: { type: "boolean", default: false } } });
      const all = await services.accounts.list();
      if (values.json) return out(JSON.stringify(all.map(accountToJson)));
      if (all.length === 0) return out("No accounts.");
      return out(
        table(
          ["ID", "NAME", "PLAN", "CREDITS", "SEARCH RPM", "FETCH UPM", "PENDING RUNS", "STATE"],
          all.map((a) => [
            a.id,
            a.name ?? "-",
            a.plan,
            String(a.creditBalance),
            String(a.limits.searchRpm),
            String(a.limits.fetchUpm),
            String(a.limits.maxPendingRuns),
            a.suspended ? "suspended" : "active",
          ]),
        ),
      );
    }
    case "show": {
      const {
        positionals: [id],
        values,
      } = positionals(rest, 1, "accounts show <account_id> [--json]", {
        json: { type: "boolean", default: false },
      });
      const a = await services.accounts.get(id as string);
      return out(values.json ? JSON.stringify(accountToJson(a)) : describe(a));
    }
    case "set-plan": {
      const [id, plan] = positionals(rest, 2, "accounts set-plan <account_id> <plan>").positionals as [string, string];
      if (!(PLANS as readonly string[]).includes(plan)) throw new UsageError(`plan must be one of ${PLANS.join(", ")}`);
      return out(describe(await services.accounts.setPlan(id, plan as Plan)));
    }
    case "grant":
    case "revoke": {
      const parsed = parseArgs({ args: rest, strict: true, allowPositionals: true, options: {} });
      const [id, ...list] = parsed.positionals;
      const entitlements = splitList(list);
      if (!id || entitlements.length === 0) throw new UsageError(`usage: accounts ${sub} <account_id> <entitlement>[,...]`);
      const a =
        sub === "grant" ? await services.accounts.grant(id, entitlements) : await services.accounts.revoke(id, entitlements);
      return out(describe(a));
    }
    case "credits": {
      const {
        positionals: [id],
        values,
      } = positionals(attachNegativeValues(rest, ["--add"]), 1, "accounts credits <account_id> [--add <n> | --set <n>]", {
        add: { type: "string" },
        set: { type: "string" },
      });
      if (values.add !== undefined && values.set !== undefined) throw new UsageError("use either --add or --set, not both");
      let a: AccountView;
      if (values.add !== undefined) {
        a = await services.accounts.addCredits(
          id as string,
          parseInteger("--add", values.add as string, { allowNegative: true }),
        );
      } else if (values.set !== undefined) {
        a = await services.accounts.setCredits(id as string, parseInteger("--set", values.set as string));
      } else {
        a = await services.accounts.get(id as string);
      }
      return out(`account ${a.id} has ${a.creditBalance} credits`);
    }
    case "set-limits": {
      const {
        positionals: [id],
        values,
      } = positionals(rest, 1, "accounts set-limits <account_id> [--search-rpm N] [--fetch-upm N] [--max-pending-runs N]", {
        "search-rpm": { type: "string" },
        "fetch-upm": { type: "string" },
        "max-pending-runs": { type: "string" },
      });
      const patch = {
        searchRpm: parseLimit("--search-rpm", values["search-rpm"] as string | undefined),
        fetchUpm: parseLimit("--fetch-upm", values["fetch-upm"] as string | undefined),
        maxPendingRuns: parseLimit("--max-pending-runs", values["max-pending-runs"] as string | undefined),
      };
      const set = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
      if (Object.keys(set).length === 0)
        throw new UsageError("set-limits needs at least one of --search-rpm, --fetch-upm, --max-pending-runs");
      return out(describe(await services.accounts.setLimits(id as string, set)));
    }
    case "suspend":
    case "unsuspend": {
      const [id] = positionals(rest, 1, `accounts ${sub} <account_id>`).positionals as [string];
      return out(describe(await services.accounts.setSuspended(id, sub === "suspend")));
    }
    case "webhook-secret": {
      const {
        positionals: [id],
        values,
      } = positionals(rest, 1, "accounts webhook-secret <account_id> [--rotate] [--json]", {
        rotate: { type: "boolean", default: false },
        json: { type: "boolean", default: false },
      });
      const secrets = services.webhookSecrets;
      const accountId = id as string;
      const secret = values.rotate ? await secrets.rotate(accountId) : await secrets.get(accountId);
      if (values.json) return out(JSON.stringify({ account_id: accountId, webhook_secret: secret, rotated: values.rotate }));
      return out(
        values.rotate
          ? `account ${accountId} has a new webhook secret (deliveries are signed with it from now on):\n${secret}`
          : `account ${accountId} webhook secret:\n${secret}`,
      );
    }
    default:
      throw new UsageError(sub ? `unknown accounts command "${sub}"` : "accounts needs a command");
  }
}
