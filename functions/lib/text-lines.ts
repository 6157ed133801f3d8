/**
 * Reading text files a line at a time without holding a line whole: the JSONL import and
 * `osprey index add --file`, both of which may run in the server for a CLI beside it.
 */

/**
 * The longest line read, in characters. readline holds a line whole: a file with a line past V8's
 * string limit (about 512 MB; a dump without newlines) threw from inside the stream, an uncaught
 * exception that ended the process, the server's when the CLI forwards the import to it.
 */
export const MAX_LINE_CHARS = 64 * 1024 * 1024;

/** What `textLines` yields for a line past its limit (the line itself is not kept). */
export const LINE_TOO_LONG = Symbol("line too long");

/**
 * The lines of a stream of text, split at "\n" (a "\r" before it dropped), the last one without
 * its newline too; a line longer than `maxChars` is yielded as LINE_TOO_LONG, its text skipped as it
 * streams past.
 */
export async function* textLines(
  chunks: AsyncIterable<string>,
  maxChars = MAX_LINE_CHARS,
): AsyncGenerator<string | typeof LINE_TOO_LONG> {
  let parts: string[] = [];
  let size = 0;
  let tooLong = false;
  const line = () => {
    const text = parts.join("");
    return text.endsWith("\r") ? text.slice(0, -1) : text;
  };
  for await (const chunk of chunks) {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf("\n", start);
      const end = nl < 0 ? chunk.length : nl;
      if (!tooLong && size + (end - start) > maxChars) {
        tooLong = true;
        parts = [];
      }
      if (!tooLong && end > start) parts.push(chunk.slice(start, end));
      size += end - start;
      if (nl < 0) break;
      yield tooLong ? LINE_TOO_LONG : line();
      parts = [];
      size = 0;
      tooLong = false;
      start = nl + 1;
    }
  }
  if (tooLong) yield LINE_TOO_LONG;
  else if (size > 0) yield line();
}
