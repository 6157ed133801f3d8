import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import type { IndexDocument, IndexWriter } from "../../functions/search/local/document.ts";
import { importJsonlFile, LINE_TOO_LONG, textLines } from "../../functions/search/local/import-jsonl.ts";
import { mulberry32 } from "../helpers/prng.ts";

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** `text` as a stream of chunks cut at random places (multi-byte characters included). */
async function* chunked(text: string, rand: () => number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; ) {
    const n = 1 + Math.floor(rand() * 12);
    yield text.slice(i, i + n);
    i += n;
  }
}

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
describe("JSONL lines (functions/search/local/import-jsonl.ts)", () => {
  it("splits as readline does on 2,000 generated texts, whatever the chunks", async () => {
    const rand = mulberry32(20261130);
    const alphabet = ["a", "é", "😀", " ", "\n", "\r\n", "{", '"', "\n\n"];
    for (let i = 0; i < 2000; i++) {
      let text = "";
      for (let j = Math.floor(rand() * 30); j > 0; j--) text += alphabet[Math.floor(rand() * alphabet.length)];
      const want = await collect(createInterface({ input: Readable.from([text]), crlfDelay: Number.POSITIVE_INFINITY }));
      expect(await collect(textLines(chunked(text, rand))), JSON.stringify(text)).toEqual(want);
    }
  });

  it("yields a line past the limit as LINE_TOO_LONG without keeping it, and reads on", async () => {
    const rand = mulberry32(7);
    const text = `short\n${"x".repeat(5000)}\nafter\n${"y".repeat(1001)}`;
    expect(await collect(textLines(chunked(text, rand), 1000))).toEqual(["short", LINE_TOO_LONG, "after", LINE_TOO_LONG]);
    expect(await collect(textLines(chunked(`${"z".repeat(1000)}\n`, rand), 1000))).toEqual(["z".repeat(1000)]);
  });

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
