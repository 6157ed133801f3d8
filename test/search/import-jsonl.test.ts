import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importJsonlFile } from "../../functions/search/local/import-jsonl.ts";
import { createLocalIndex } from "../../functions/search/local/local-index.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";
import { searchQuery } from "../helpers/search-upstreams.ts";

const dir = mkdtempSync(path.join(tmpdir(), "osprey-jsonl-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// `osprey index import --jsonl` into the real local index: lines read as they stream, none held
// past the limit.
describe.each(driverCases(["pglite"]))("JSONL import on $driver", ({ open }) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await open();
  });
  afterAll(() => db?.dispose());

  it("reports a line past the limit with its number and imports the others", async () => {
    const index = createLocalIndex({ db: db.db });
    const file = path.join(dir, "long.jsonl");
    const doc = (n: number) => JSON.stringify({ url: `https://example.com/${n}`, title: `Doc ${n}`, text: "osprey nests" });
    writeFileSync(
      file,
      `${doc(1)}\n${JSON.stringify({ url: "https://example.com/big", text: "osprey ".repeat(4000) })}\n${doc(3)}\n`,
    );
    const summary = await importJsonlFile(index.writer, file, { maxLineChars: 2000 });
    expect(summary).toMatchObject({
      lines: 3,
      inserted: 2,
      rejected: 1,
      errors: [{ line: 2, reason: "longer than 2000 characters" }],
    });
    const hits = await index.provider.search(searchQuery({ text: "osprey" }), new AbortController().signal, {
      accountId: "acct_reader",
    });
    expect(hits.hits.map((h) => h.url).sort()).toEqual(["https://example.com/1", "https://example.com/3"]);
  });
});
