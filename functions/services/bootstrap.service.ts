import type { AccountService, AccountView } from "./account.service.ts";
import type { ApiKeyService } from "./api-key.service.ts";

/**
 * First start: with no account in the database, create one on the pro plan and one API key, so a
 * self-hoster can call the API straight away. The key is returned once, for the caller to print;
 * the next start finds the account and creates nothing.
 */
export async function ensureFirstAccount(services: {
  accounts: AccountService;
  apiKeys: ApiKeyService;
}): Promise<{ account: AccountView; key: string } | null> {
  if ((await services.accounts.count()) > 0) return null;
  const account = await services.accounts.create({ plan: "pro", name: "default" });
  const { key } = await services.apiKeys.create({ accountId: account.id, name: "first key" });
  return { account, key };
}
