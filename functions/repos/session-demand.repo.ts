import { and, count, eq, ne } from "drizzle-orm";
import { browserSessions } from "../../schema/tables/index.ts";
import type { Db } from "../db/db.ts";

/**
 * Open browser sessions as a demand signal for the scaler (functions/scaler), across all accounts:
 * an operator-level count, never returned to a caller. Only totals are read, never a row.
 */
export function sessionDemandRepo(db: Db) {
  return {
    /** Sessions not ended, on any container. */
    async openSessions(): Promise<number> {
      const rows = await db.select({ n: count() }).from(browserSessions).where(ne(browserSessions.status, "ended"));
      return Number(rows[0]?.n ?? 0);
    },
    /** Sessions not ended that the container at `hostUrl` holds (its scale-in protection). */
    async openSessionsOn(hostUrl: string): Promise<number> {
      const rows = await db
        .select({ n: count() })
        .from(browserSessions)
        .where(and(ne(browserSessions.status, "ended"), eq(browserSessions.hostUrl, hostUrl)));
      return Number(rows[0]?.n ?? 0);
    },
  };
}

export type SessionDemandRepo = ReturnType<typeof sessionDemandRepo>;
