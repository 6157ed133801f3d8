import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openRuntime } from "../../containers/local/runtime.ts";
import { ConfigError, parseConfig } from "../../functions/config/config.ts";
import { TEST_DATABASE_URL } from "../helpers/databases.ts";
import { tempDir } from "../helpers/process.ts";

/** First start says what it is doing; a bad DATABASE_URL names the variable and the fix. */

const dirs: Array<{ cleanup(): void }> = [];
afterAll(() => {
  for (const d of dirs) d.cleanup();
});
const dataDir = () => {
  const t = tempDir("osprey-startup-");
  dirs.push(t);
  return path.join(t.dir, "data");
};

describe("DATABASE_URL errors", () => {
  it.each(["mysql://x", "postgres//nohost", "db.internal:6543"])(
    "%s: one line naming the variable, an example and the way back",
    (url) => {
      let err: unknown;
      try {
        parseConfig({ DATABASE_URL: url });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      const message = (err as Error).message;
      expect(message).toMatch(
        /^invalid configuration: DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL such as postgres:\/\//,
      );
      expect(message).toContain("unset it to use the embedded database");
      expect(message).not.toContain(url);
      expect(message).not.toContain("\n");
    },
  );

  it("a server that refuses connections: names DATABASE_URL without its password and says what to check", async () => {
    const config = parseConfig({ DATABASE_URL: "postgres://osprey:s3cret@127.0.0.1:1/osprey", OSPREY_DATA_DIR: dataDir() });
    const err = (await openRuntime(config, "test").catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toMatch(
      /^could not open the database at DATABASE_URL \(postgres:\/\/osprey:\*\*\*@127\.0\.0\.1:1\/osprey\): /,
    );
    expect(err.message).toContain("Is Postgres running there and reachable?");
    expect(err.message).toContain("Check DATABASE_URL, or unset it to use the embedded database.");
    expect(err.message).not.toContain("s3cret");
  });

  it.runIf(TEST_DATABASE_URL)("a database that does not exist: says so and how to create it", async () => {
    const url = new URL(TEST_DATABASE_URL);
    url.pathname = "/osprey_no_such_database";
    const config = parseConfig({ DATABASE_URL: url.toString(), OSPREY_DATA_DIR: dataDir() });
    const err = (await openRuntime(config, "test").catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/^could not open the database at DATABASE_URL \(.*osprey_no_such_database\)/);
    expect(err.message).toContain("That database does not exist: create it (createdb) or name another.");
  });
});

describe("start-up progress", () => {
  it("opening the database and applying migrations are reported, with timings", async () => {
    const steps: Array<{ msg: string; fields: Record<string, unknown> }> = [];
    const config = parseConfig({ OSPREY_DATA_DIR: dataDir() });
    const runtime = await openRuntime(config, "test", { progress: (msg, fields) => steps.push({ msg, fields }) });
    await runtime.close();
    expect(steps.map((s) => s.msg)).toEqual(["opening the database", "database open; applying migrations", "migrations applied"]);
    expect(steps[0]?.fields).toEqual({ driver: "pglite" });
    expect(steps[1]?.fields).toMatchObject({ database: expect.stringMatching(/^pglite/), ms: expect.any(Number) });
    expect(steps[2]?.fields).toEqual({ ms: expect.any(Number) });
  }, 60_000);
});
