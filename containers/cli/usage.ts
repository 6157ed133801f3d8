/** Usage text of the CLI commands (kept apart so that `osprey --help` loads nothing else). */

/** Every command the CLI knows; `serve` and `worker` are long-running and handled by osprey.ts. */
export const COMMANDS = ["serve", "worker", "migrate", "keys", "accounts", "index", "vault"] as const;

/** The whole usage text (`osprey --help`), assembled from the commands' own parts below. */
export function usage(): string {
  return `Usage:
osprey serve                 start the server (same as npm start)
osprey worker                run automation runs and webhooks only (beside a server with OSPREY_WORKER=off)
osprey migrate               apply pending database migrations
${KEYS_USAGE}
${ACCOUNTS_USAGE}
${INDEX_USAGE}
${VAULT_USAGE}

Beside a running server on the embedded database, commands go to it through its admin socket
(<OSPREY_DATA_DIR>/admin/osprey.sock); serve, worker, migrate and vault rekey need it stopped.
Configuration comes from the environment (see README): OSPREY_DATA_DIR, DATABASE_URL, ...`;
}

export const KEYS_USAGE = `osprey keys create [--account <id> | --plan <plan> --entitlements a,b --credits <n>] [--name <n>]
                   [--scope api|mcp] [--sub-user <id>] [--expires-in-days <n>] [--json]
                             a new account starts with its plan's credits unless --credits says otherwise
osprey keys list [--account <id>] [--json]
osprey keys revoke <prefix|id>`;

export const ACCOUNTS_USAGE = `osprey accounts list [--json]
osprey accounts show <account_id> [--json]
osprey accounts set-plan <account_id> <free|payg|starter|pro>
osprey accounts grant <account_id> <entitlement>[,<entitlement>...]
osprey accounts revoke <account_id> <entitlement>[,<entitlement>...]
osprey accounts credits <account_id> [--add <n> | --set <n>]
osprey accounts set-limits <account_id> [--search-rpm <n|default>] [--fetch-upm <n|default>]
                           [--max-pending-runs <n|default>]
osprey accounts suspend|unsuspend <account_id>
osprey accounts webhook-secret <account_id> [--rotate] [--json]`;

export const INDEX_USAGE = `osprey index import --jsonl <file> [--json]   one JSON document per line (url, title, text, ...)
osprey index add <url...> | --file urls.txt | --sitemap <url>  [--concurrency n] [--limit n] [--json]
                             fetch pages into the local search index (progress on stderr)
osprey index count [--json]
osprey index remove <url>`;

export const VAULT_USAGE = `osprey vault add <account_id> --vault <name> --label <label> --domains a.com,b.com
                  --field username=<v> --field password=<v> [--field <id>=<v> ...]
                  [--totp <base32 | otpauth://totp/...>] [--json]
                             a value - is read from standard input (one line each, in order)
osprey vault list [<account_id>] [--json]
osprey vault remove <itemId>
osprey vault enable|disable <itemId>
osprey vault rekey           re-seal every vault secret under OSPREY_VAULT_KEY (after a rotation)
osprey vault connect <account_id> --provider onepassword|bitwarden --url <url> [--token <t|->]
                     [--name <n>] [--no-verify] [--json]
osprey vault connections [<account_id>] [--json]
osprey vault disconnect <connection_id>`;
