import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executeGeneric, literal, MAX_PREPARED } from "../../functions/db/generic-plan.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { rows } from "../helpers/search-index.ts";

// A statement run under a generic plan (functions/db/generic-plan.ts): prepared once per text on
// PGlite and executed with its values as literals, under plan_cache_mode set for that statement
// alone; as before everywhere else. The same rows either way, whatever the values hold.

const NASTY = [
  "plain",
  "it's",
  "''",
  "back\\slash \\' \\\\",
  '"quoted", {braced}, NULL',
  "'); drop table generic_plan_probe; --",
  "émoji 🦅 東京 \u2028 tab\there",
  "",
];

describe("literal", () => {
  it("writes strings, finite numbers and arrays of them; refuses what it cannot pass exactly", () => {
    expect(literal("it's")).toBe("'it''s'");
    expect(literal(-2.5)).toBe("-2.5");
    expect(literal(-0)).toBe("0");
    expect(literal([])).toBe("'{}'");
    expect(literal(["a", 1])).toBe("ARRAY['a',1]");
    for (const bad of [
      "nul\0byte",
      Number.NaN,
      Number.POSITIVE_INFINITY,
      null,
      undefined,
      true,
      {},
      [1, Number.NaN],
      new Date(),
    ]) {
      expect(literal(bad)).toBeNull();
    }
  });
});

describe.each(driverCases(["pglite", "pg"]))("executeGeneric on $driver", ({ driver, open }) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await open();
    await database.db.execute(sql`create table generic_plan_probe (id int primary key, label text)`);
    await database.db.execute(sql`insert into generic_plan_probe select g, 'row ' || g from generate_series(1, 50) g`);
  }, 60_000);
  afterAll(() => database?.dispose());

  const statement = (labels: string[], ids: number[], factor: number, min: number) =>
    sql`select p.id, p.label, u.label as given, u.ord, p.id * ${factor}::float8 as scaled
      from unnest(${sql.param(labels)}::text[]) with ordinality as u(label, ord)
      join generic_plan_probe p on p.id = (${sql.param(ids)}::int[])[u.ord]
      where p.id >= ${min} order by u.ord`;
  const prepared = async () =>
    Number((await rows<{ n: string }>(database.db, sql`select count(*) as n from pg_prepared_statements`))[0]?.n);
  const planMode = async () =>
    (await rows<{ m: string }>(database.db, sql`select current_setting('plan_cache_mode') as m`))[0]?.m;

  it("gives the rows db.execute gives, for values holding quotes, backslashes, braces and SQL", async () => {
    const ids = NASTY.map((_, i) => i + 1);
    for (const [factor, min] of [
      [1.5, 1],
      [-0.25, 3],
      [1e-7, 0],
    ] as const) {
      const generic = (await executeGeneric(database.db, statement(NASTY, ids, factor, min))) as { rows: unknown[] };
      const plain = (await database.db.execute(statement(NASTY, ids, factor, min))) as unknown as { rows: unknown[] };
      expect(generic.rows).toEqual(plain.rows);
      expect(generic.rows.length).toBe(NASTY.length - (min > 1 ? min - 1 : 0));
    }
    const given = (
      (await executeGeneric(database.db, statement(NASTY, [1, 2, 3, 4, 5, 6, 7, 8], 1, 0))) as { rows: { given: string }[] }
    ).rows;
    expect(given.map((r) => r.given)).toEqual(NASTY);
    expect(await rows(database.db, sql`select count(*)::int as n from generic_plan_probe`)).toEqual([{ n: 50 }]);
    // Empty arrays take the parameter's type.
    expect(((await executeGeneric(database.db, statement([], [], 1, 0))) as { rows: unknown[] }).rows).toEqual([]);
  });

  it("prepares a statement once on PGlite and runs it under a generic plan, never leaving the mode set", async () => {
    const once = sql`select ${"x"}::text as v, ${2}::int as n`;
    await executeGeneric(database.db, once);
    const first = await prepared();
    for (let i = 0; i < 3; i++) await executeGeneric(database.db, sql`select ${"x"}::text as v, ${i}::int as n`);
    expect(await prepared()).toBe(first);
    if (driver === "pglite") {
      expect(first).toBeGreaterThan(0);
      const [plans] = await rows<{ generic: string; custom: string }>(
        database.db,
        sql`select sum(generic_plans) as generic, sum(custom_plans) as custom from pg_prepared_statements`,
      );
      expect(Number(plans?.generic)).toBeGreaterThanOrEqual(4);
      expect(Number(plans?.custom)).toBe(0);
    } else {
      expect(first).toBe(0);
    }
    expect(await planMode()).toBe("auto");
  });

  it("a failing execution throws as db.execute does and leaves the session as it was", async () => {
    const failing = (d: number) => sql`select 1 / ${d}::int as x from generic_plan_probe limit 1`;
    const error = await executeGeneric(database.db, failing(0)).catch((e: Error & { cause?: Error }) => e.cause ?? e);
    expect(String((error as Error).message)).toMatch(/division by zero/);
    expect(await planMode()).toBe("auto");
    expect(((await executeGeneric(database.db, failing(1))) as { rows: unknown[] }).rows).toEqual([{ x: 1 }]);
    // A value it cannot pass as a literal runs as before (Postgres refuses a NUL either way).
    await expect(executeGeneric(database.db, statement(["nul\0"], [1], 1, 0))).rejects.toThrow();
    expect(await planMode()).toBe("auto");
  });

  it("a statement PREPARE does not take runs as it is", async () => {
    for (let i = 0; i < 2; i++) {
      await executeGeneric(database.db, sql`create table if not exists generic_plan_made (n int)`);
      await executeGeneric(database.db, sql`insert into generic_plan_made values (${i})`);
    }
    const got = (await executeGeneric(database.db, sql`select n from generic_plan_made order by n`)) as { rows: unknown[] };
    expect(got.rows).toEqual([{ n: 0 }, { n: 1 }]);
    expect(await planMode()).toBe("auto");
  });

  it("keeps at most MAX_PREPARED statements, and a statement deallocated is prepared again", async () => {
    const shape = (k: number) => sql`select ${k}::int + ${sql.raw(String(k))} as v`;
    for (let k = 0; k < MAX_PREPARED + 8; k++) {
      expect(((await executeGeneric(database.db, shape(k))) as { rows: unknown[] }).rows).toEqual([{ v: 2 * k }]);
    }
    // Deallocations are queued behind the statements: one more round trip lets them finish.
    await database.db.execute(sql`select 1`);
    if (driver === "pglite") expect(await prepared()).toBeLessThanOrEqual(MAX_PREPARED);
    expect(((await executeGeneric(database.db, shape(0))) as { rows: unknown[] }).rows).toEqual([{ v: 0 }]);
  });
});
