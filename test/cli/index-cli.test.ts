import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { indexCommand } from "../../containers/cli/commands/index.ts";
import { UsageError } from "../../containers/cli/format.ts";
import { migratedDataDir } from "../helpers/data-dir.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { killChildren, runCli } from "../helpers/process.ts";

/**
 * `osprey index import|count|remove`: in process against each test database, and once as the real
 * `osprey` process on a PGlite data directory.
 */

const dir = migratedDataDir("osprey-index-cli-");
afterAll(async () => {
  await killChildren();
  dir.cleanup();
});

const LINES = [
  JSON.stringify({ url: "https://example.com/a", title: "Alpha", text: "alpha text about cats" }),
  "not json",
  JSON.stringify({ url: "https://example.com/b", title: "Beta", text: "beta text", type: "news", published_date: "2026-01-02" }),
  "",
  JSON.stringify({ title: "no url", text: "x" }),
  JSON.stringify({ url: "https://example.com/c", title: "Gamma", text: "gamma", type: "blog" }),
  JSON.stringify({ url: "https://example.org/p", title: "Paper", text: "t", type: "research_paper", authors: ["X"], year: 2020 }),
];
const file = path.join(dir.dir, "docs.jsonl");
writeFileSync(file, `${LINES.join("\n")}\n`);

describe.each(driverCases(["pglite", "pg"]))("osprey index ($driver, in process)", ({ open }) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await open();
  }, 60_000);
  afterAll(() => t?.dispose());

  async function run(...args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    await indexCommand(t.db, args, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { out, err };
  }

  it("import --json: counts, bad lines reported with their numbers, idempotent on url", async () => {
    const first = await run("import", "--jsonl", file, "--json");
    expect(JSON.parse(first.out.join(""))).toMatchObject({ lines: 7, inserted: 3, updated: 0, unchanged: 0, rejected: 3 });
    expect(first.err).toEqual([
      expect.stringMatching(/^line 2: not JSON/),
      "line 5: missing url",
      "line 6: type must be web, news or research_paper, not blog",
    ]);
    const again = await run("import", "--jsonl", file, "--json");
    expect(JSON.parse(again.out.join(""))).toMatchObject({ inserted: 0, unchanged: 3, rejected: 3 });
    expect((await run("count")).out).toEqual(["3 documents in the local index."]);
  });

  it("remove, count --json and usage errors", async () => {
    expect((await run("remove", "https://EXAMPLE.com/a")).out).toEqual(["Removed https://EXAMPLE.com/a."]);
    await expect(run("remove", "https://example.com/a")).rejects.toThrow(UsageError);
    expect((await run("count", "--json")).out).toEqual(['{"documents":2}']);
    await expect(run("import")).rejects.toThrow(UsageError);
    await expect(run("bogus")).rejects.toThrow(/unknown index command "bogus"/);
  });
});

describe("osprey index (real process, PGlite)", () => {
  it("imports with a summary on stdout, bad lines on stderr, then counts", async () => {
    const env = { OSPREY_DATA_DIR: dir.dir };
    const r = await runCli(["index", "import", "--jsonl", file], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^Imported .*docs\.jsonl: 3 inserted, 0 updated, 0 unchanged, 3 rejected in [\d.]+ s \(\d+ docs\/s\)\.\n$/,
    );
    expect(r.stderr).toContain("line 2: not JSON");
    const count = await runCli(["index", "count"], env);
    expect(count.stdout).toBe("3 documents in the local index.\n");
    const usage = await runCli(["--help"], {});
    expect(usage.stdout).toContain("osprey index import --jsonl <file>");
  }, 60_000);
});
