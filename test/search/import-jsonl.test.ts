import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { IndexDocument, IndexWriter } from "../../functions/search/local/document.ts";
import { importJsonlFile } from "../../functions/search/local/import-jsonl.ts";

/** An index writer that keeps what it is given (these tests are about reading the file). */
const recordingWriter = () => {
  const docs: IndexDocument[] = [];
  const writer: IndexWriter = {
    upsert: async (batch: IndexDocument[]) => {
      docs.push(...batch);
      return { inserted: batch.length, updated: 0, unchanged: 0, rejected: [] };
    },
    remove: async () => false,
    count: async () => docs.length,
  };
  return { docs, writer };
};

const dir = mkdtempSync(path.join(tmpdir(), "osprey-jsonl-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// `osprey index import --jsonl`: lines read as they stream, none held past the limit.
describe("JSONL import (functions/search/local/import-jsonl.ts)", () => {
  it("an import reports a line past the limit with its number and imports the others", async () => {
    const file = path.join(dir, "long.jsonl");
    const doc = (n: number) => JSON.stringify({ url: `https://example.com/${n}`, title: `Doc ${n}`, text: "osprey" });
    writeFileSync(file, `${doc(1)}\n${JSON.stringify({ url: "https://example.com/big", text: "w ".repeat(4000) })}\n${doc(3)}\n`);
    const { docs, writer } = recordingWriter();
    const summary = await importJsonlFile(writer, file, { maxLineChars: 2000 });
    expect(summary).toMatchObject({
      lines: 3,
      inserted: 2,
      rejected: 1,
      errors: [{ line: 2, reason: "longer than 2000 characters" }],
    });
    expect(docs.map((d) => d.url)).toEqual(["https://example.com/1", "https://example.com/3"]);
  });
});
