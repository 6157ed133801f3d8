import type { AccountService, AccountView } from "./account.service.ts";
import type { ApiKeyService } from "./api-key.service.ts";

/** Credits of the first account, so automation runs work out of the box (1 credit per agent step). */
export const FIRST_ACCOUNT_CREDITS = 10_000;

/**
 * First start: with no account in the database, create one on the pro plan with
 * FIRST_ACCOUNT_CREDITS credits and one API key, so a self-hoster can call the API straight away. The key is returned once, for the caller to print;
 * the next start finds the account and creates nothing.
 */
export async function ensureFirstAccount(services: {
  accounts: AccountService;
  apiKeys: ApiKeyService;
}): Promise<{ account: AccountView; key: string } | null> {
  if ((await services.accounts.count()) > 0) return null;
  const account = await services.accounts.create({ plan: "pro", name: "default", credits: FIRST_ACCOUNT_CREDITS });
  const { key } = await services.apiKeys.create({ accountId: account.id, name: "first key" });
  return { account, key };
}
