/**
 * A statement run under a generic plan: prepared once per statement text, then executed without
 * planning. For a statement whose plan does not depend on its values, planning is pure overhead:
 * the local index's ranking statement spends about 3 ms of 13 planning on SciFact (PGlite in
 * WebAssembly), every query. Postgres chooses a generic plan by itself only when its estimated cost
 * is no worse than the custom plans', which it rarely is for a statement of arrays and CTEs, so the
 * choice is forced (`plan_cache_mode`) for this statement alone, inside a transaction of its own
 * (`SET LOCAL`: no other statement of the session ever runs under it, whatever fails).
 *
 * PGlite only, where the process owns its one connection: a Postgres pool would need each statement
 * prepared on each of its connections. Elsewhere, and for values this cannot pass exactly, the
 * statement runs as it always did (`db.execute`). A caller decides which statements' plans do not
 * depend on their values (see ranking.ts: not those with a LIKE pattern, whose index use does).
 *
 * The values are passed to EXECUTE as literals (EXECUTE takes no bind parameters): strings quoted
 * with every `'` doubled (standard_conforming_strings is on: a backslash is only a backslash),
 * finite numbers as written by JavaScript, arrays of those as ARRAY[...]; anything else (a NUL
 * character, which Postgres text cannot hold, a non-finite number, another type) falls back.
 */
import { type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { Db } from "./db.ts";

const dialect = new PgDialect();

/** The most statements kept prepared per database; past it the least recently used is deallocated. */
export const MAX_PREPARED = 32;

interface Prepared {
  /** Statement text -> its name, least recently used first. */
  names: Map<string, Promise<string>>;
  /** Texts that could not be prepared (not a query PREPARE takes): run as they are from then on. */
  refused: Set<string>;
  next: number;
}

const prepared = new WeakMap<Db, Prepared>();

/**
 * The databases whose one connection this process owns (PGlite: wrapPglite marks each). Marked
 * rather than detected, so that this module never loads PGlite (the edge functions' bundles carry
 * none).
 */
const ownConnection = new WeakSet<Db>();

/** Marks `db` as a database on a connection of its own (see ownConnection). */
export function ownsItsConnection(db: Db): void {
  ownConnection.add(db);
}

/** `v` as a SQL literal, or null where it cannot be passed exactly (see the top of this file). */
export function literal(v: unknown): string | null {
  if (typeof v === "string") return v.includes("\0") ? null : `'${v.replaceAll("'", "''")}'`;
  if (typeof v === "number") return Number.isFinite(v) ? (Object.is(v, -0) ? "0" : String(v)) : null;
  if (Array.isArray(v)) {
    // An empty ARRAY[] has no type: '{}' takes the parameter's.
    if (v.length === 0) return "'{}'";
    const items = v.map(literal);
    return items.some((i) => i === null) ? null : `ARRAY[${items.join(",")}]`;
  }
  return null;
}

/**
 * `query`'s result, under a generic plan where it can be (see the top of this file) and `generic`
 * is not false, else as `db.execute` gives it. The same rows either way.
 */
export async function executeGeneric(db: Db, query: SQL, generic = true): Promise<unknown> {
  if (!generic || !ownConnection.has(db)) return db.execute(query);
  const { sql: text, params } = dialect.sqlToQuery(query);
  const args = params.map(literal);
  if (args.some((a) => a === null)) return db.execute(query);
  let name: string;
  try {
    name = await nameOf(db, text);
  } catch {
    // Not a statement PREPARE takes (it refused it): run as it is, now and from now on.
    const p = prepared.get(db);
    if (p && p.refused.size < MAX_PREPARED) p.refused.add(text);
    return db.execute(query);
  }
  try {
    return await db.transaction(async (tx) => {
      await tx.execute(sql`set local plan_cache_mode = force_generic_plan`);
      return tx.execute(sql.raw(`execute ${name}${args.length > 0 ? `(${args.join(", ")})` : ""}`));
    });
  } catch (err) {
    // Deallocated meanwhile (32 other statements prepared since this one was named): run it as is.
    if ((err as { code?: string }).code !== "26000") throw err;
    prepared.get(db)?.names.delete(text);
    return db.execute(query);
  }
}

/** The name `text` is prepared under on this database, preparing it (and deallocating the oldest) first if need be. */
async function nameOf(db: Db, text: string): Promise<string> {
  let p = prepared.get(db);
  if (!p) {
    p = { names: new Map(), refused: new Set(), next: 0 };
    prepared.set(db, p);
  }
  if (p.refused.has(text)) throw new Error("refused before");
  const known = p.names.get(text);
  if (known) {
    p.names.delete(text);
    p.names.set(text, known);
    try {
      return await known;
    } catch {
      // A failed PREPARE is tried again below.
    }
  }
  const name = `osprey_generic_${p.next++}`;
  const ready = db.execute(sql.raw(`prepare ${name} as ${text}`)).then(() => name);
  p.names.set(text, ready);
  ready.catch(() => {
    if (p.names.get(text) === ready) p.names.delete(text);
  });
  for (const [oldest, was] of p.names) {
    if (p.names.size <= MAX_PREPARED) break;
    p.names.delete(oldest);
    void was.then((n) => db.execute(sql.raw(`deallocate ${n}`))).catch(() => {});
  }
  return ready;
}
