import { PGlite } from "@electric-sql/pglite";
import { afterEach, describe, expect, it } from "vitest";
import { openPglite, wrapPglite } from "../../functions/db/pglite-database.ts";
import { tempDir } from "../helpers/process.ts";
import { waitFor } from "../helpers/wait.ts";

/**
 * PGlite has no checkpointer (single-user Postgres): the process checkpoints the write-ahead log
 * itself once it has grown past a size (functions/db/pglite-database.ts, WalCheckpoints). Here the
 * size is 2 MB and the check runs every 50 ms; the product's are 256 MB and 30 s.
 */

const walSinceCheckpoint = async (client: PGlite) =>
  Number(
    (
      await client.query<{ wal: string }>(
        "select pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn)::text as wal from pg_control_checkpoint()",
      )
    ).rows[0]?.wal,
  );

const redo = async (client: PGlite) =>
  (await client.query<{ redo: string }>("select redo_lsn::text as redo from pg_control_checkpoint()")).rows[0]?.redo;

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

describe("PGlite checkpoints its own write-ahead log", () => {
  it("past the size, a checkpoint trims what the writes left; without writes, none runs", async () => {
    const client = await PGlite.create();
    const db = wrapPglite(client, "test", { bytes: 2 * 1024 * 1024, intervalMs: 50 });
    closers.push(() => db.close());
    await client.exec("create table t (id int, body text)");
    const idle = await redo(client);
    await new Promise((r) => setTimeout(r, 300));
    // Six ticks with little WAL: no checkpoint (its redo position is where it was).
    expect(await redo(client)).toBe(idle);
    await client.exec("insert into t select g, repeat(md5(g::text), 40) from generate_series(1, 5000) g");
    expect(await walSinceCheckpoint(client)).toBeGreaterThan(2 * 1024 * 1024);
    await waitFor(async () => (await walSinceCheckpoint(client)) < 2 * 1024 * 1024);
    expect(await redo(client)).not.toBe(idle);
    expect(Number((await client.query<{ n: number }>("select count(*)::int as n from t")).rows[0]?.n)).toBe(5000);
  });

  it("on a data dir, the writes survive the checkpoint and a reopen; closing stops the timer", async () => {
    const dir = tempDir("osprey-pglite-wal-");
    closers.push(async () => dir.cleanup());
    const wal = { bytes: 1024 * 1024, intervalMs: 50 };
    const first = await openPglite(`${dir.dir}/pglite`, { walCheckpoints: wal });
    await first.db.execute("create table t (id int, body text)");
    await first.db.execute("insert into t select g, repeat(md5(g::text), 40) from generate_series(1, 3000) g");
    await new Promise((r) => setTimeout(r, 300));
    await first.close();
    // Ticks after close find a closed client and do nothing (no unhandled rejection fails the file).
    await new Promise((r) => setTimeout(r, 200));
    const again = await openPglite(`${dir.dir}/pglite`, { walCheckpoints: wal });
    closers.push(() => again.close());
    const rows = (await again.db.execute("select count(*)::int as n from t")) as unknown as { rows: { n: number }[] };
    expect(rows.rows[0]?.n).toBe(3000);
  });
});
