import { and, eq, isNull, sql } from "drizzle-orm";
import { accounts } from "../../schema/tables/index.ts";
import type { Db } from "../db/db.ts";
import { AppError } from "../lib/app-error.ts";
import { newWebhookSecret } from "./signing.ts";

/**
 * An account's webhook signing secret (accounts.webhook_secret). It is made on first use: the
 * dispatcher asks for it before signing, the CLI before showing it. Creation is a conditional
 * UPDATE (`where webhook_secret is null`) followed by a re-read, so two processes racing to create
 * it both end up with the one that was stored first.
 */

async function readSecret(db: Db, accountId: string): Promise<{ secret: string | null } | null> {
  const [row] = await db.select({ secret: accounts.webhookSecret }).from(accounts).where(eq(accounts.id, accountId));
  return row ?? null;
}

const notFound = (accountId: string) => new AppError("NOT_FOUND", `No account with id ${accountId}.`);

/** The account's secret, created when it has none. Throws NOT_FOUND for an unknown account. */
export async function getOrCreateWebhookSecret(db: Db, accountId: string): Promise<string> {
  const existing = await readSecret(db, accountId);
  if (!existing) throw notFound(accountId);
  if (existing.secret) return existing.secret;
  await db
    .update(accounts)
    .set({ webhookSecret: newWebhookSecret(), updatedAt: sql`now()` })
    .where(and(eq(accounts.id, accountId), isNull(accounts.webhookSecret)));
  const stored = await readSecret(db, accountId);
  if (!stored) throw notFound(accountId);
  if (!stored.secret) throw new Error(`webhook secret of account ${accountId} was not stored`);
  return stored.secret;
}

/** Replaces the account's secret with a new one and returns it; deliveries signed after this use it. */
export async function rotateWebhookSecret(db: Db, accountId: string): Promise<string> {
  const [row] = await db
    .update(accounts)
    .set({ webhookSecret: newWebhookSecret(), updatedAt: sql`now()` })
    .where(eq(accounts.id, accountId))
    .returning({ secret: accounts.webhookSecret });
  if (!row?.secret) throw notFound(accountId);
  return row.secret;
}

/** The two operations bound to one database, for the services object and the CLI. */
export function webhookSecretService(deps: { db: Db }) {
  return {
    get: (accountId: string) => getOrCreateWebhookSecret(deps.db, accountId),
    rotate: (accountId: string) => rotateWebhookSecret(deps.db, accountId),
  };
}

export type WebhookSecretService = ReturnType<typeof webhookSecretService>;
