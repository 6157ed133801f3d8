import { newId, randomBase62 } from "../../functions/lib/ids.ts";
import type { SessionRepo } from "../../functions/sessions/session.repo.ts";

/**
 * A browser session row as the API inserts it (POST /v1/browser), for tests that start the host
 * themselves with durations the API refuses (a 1 s inactivity timeout) or on a host of their
 * choosing. Resolves with its id and connect token.
 */
export async function insertSessionRow(
  repo: SessionRepo,
  row: { accountId: string; hostId: string; startTime: Date; expiresAt: Date; id?: string; token?: string },
): Promise<{ id: string; token: string }> {
  const id = row.id ?? newId("bs");
  const token = row.token ?? randomBase62(32);
  const inserted = await repo.insertWithinCap(
    {
      id,
      accountId: row.accountId,
      keyId: "key_test",
      keyScope: "api",
      subUserId: null,
      mode: "light",
      options: {},
      connectToken: token,
      hostId: row.hostId,
      startTime: row.startTime,
      expiresAt: row.expiresAt,
    },
    100,
  );
  if (!inserted.ok) throw new Error(`session row ${id} not inserted: the account has ${inserted.open} open`);
  return { id, token };
}
