import { createInterface } from "node:readline";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { LINE_TOO_LONG, textLines } from "../../functions/lib/text-lines.ts";
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

// Lines read as they stream, none held past the limit (the JSONL import, index add --file).
describe("textLines (functions/lib/text-lines.ts)", () => {
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
});
