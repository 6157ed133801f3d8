import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir } from "../helpers/process.ts";
import { openPgliteDir } from "./search-db.ts";

/**
 * The search bench's `--pglite-dir PATH` (PGlite on disk, as the product opens OSPREY_DATA_DIR):
 * a kept data dir is reused without importing again, a data dir that holds something is never
 * overwritten, and one not kept is removed.
 */
describe("search bench --pglite-dir", () => {
  const t = tempDir("osprey-bench-pglite-");
  afterAll(() => t.cleanup());

  it("keeps a data dir with --keep-db and reuses it; refuses a non-empty one without --reuse-db", async () => {
    const dir = path.join(t.dir, "kept");
    const first = await openPgliteDir(dir, { keep: true });
    // The product's layout: the lock in the data dir, the database under pglite/.
    expect(JSON.parse(readFileSync(path.join(dir, "osprey.lock"), "utf8")).command).toBe("osprey bench search");
    expect(existsSync(path.join(dir, "pglite", "PG_VERSION"))).toBe(true);
    await first.db.db.execute(sql`create table bench_probe (n int)`);
    await first.db.db.execute(sql`insert into bench_probe values (42)`);
    await first.drop();
    expect(existsSync(path.join(dir, "osprey.lock"))).toBe(false);

    await expect(openPgliteDir(dir, { keep: false })).rejects.toThrow(/is not empty/);
    await expect(openPgliteDir(dir, { keep: false, reuse: "/elsewhere" })).rejects.toThrow(/takes no name/);

    const again = await openPgliteDir(dir, { keep: false, reuse: true });
    const r = (await again.db.db.execute(sql`select n from bench_probe`)) as unknown as { rows: { n: number }[] };
    expect(r.rows).toEqual([{ n: 42 }]);
    await again.drop();
    // Reusing keeps the data dir (the import it holds took most of an hour).
    expect(existsSync(path.join(dir, "pglite", "PG_VERSION"))).toBe(true);
  }, 120_000);

  it("refuses to reuse a data dir without a database, and to open one that holds other files", async () => {
    await expect(openPgliteDir(path.join(t.dir, "none"), { keep: false, reuse: true })).rejects.toThrow(/holds no database/);
    const other = path.join(t.dir, "other");
    mkdirSync(other);
    writeFileSync(path.join(other, "notes.txt"), "mine");
    await expect(openPgliteDir(other, { keep: false })).rejects.toThrow(/is not empty/);
    expect(readFileSync(path.join(other, "notes.txt"), "utf8")).toBe("mine");
  });

  it("removes a data dir it created when it is not kept", async () => {
    const dir = path.join(t.dir, "dropped");
    const bench = await openPgliteDir(dir, { keep: false });
    await bench.drop();
    expect(existsSync(dir)).toBe(false);
  }, 120_000);
});
