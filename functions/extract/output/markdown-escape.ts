// Escaping for text that goes into Markdown. Only what would change the meaning is escaped, so that
// ordinary prose stays readable: `snake_case` keeps its underscores, "a < b" keeps its "<".

const MAYBE_SPECIAL = /[\\`*_[\]<&~]/;
const SPECIAL = /[\\`*_[\]~]|<(?=[A-Za-z/!?])|&(?=#?[A-Za-z0-9]+;)/g;
const WORD = /[\p{L}\p{N}]/u;

/** Escapes inline-significant characters of already whitespace-collapsed text. */
export function escapeText(text: string): string {
  if (!MAYBE_SPECIAL.test(text)) return text;
  return text.replace(SPECIAL, (ch: string, offset: number) => {
    // an underscore inside a word never starts emphasis in GFM
    if (ch === "_" && WORD.test(text[offset - 1] ?? "") && WORD.test(text[offset + 1] ?? "")) return ch;
    return `\\${ch}`;
  });
}

const ORDERED_MARKER = /^(\d{1,9})([.)])(?=\s|$)/;
const HEADING_MARKER = /^#{1,6}(?=\s|$)/;
const SETEXT_UNDERLINE = /^=+$/;

/** Escapes what would make a line of text a heading, quote, list item or setext underline. */
export function escapeLineStart(line: string): string {
  const c = line[0];
  if (c === undefined) return line;
  if (c === ">" || ((c === "-" || c === "+") && (line.length === 1 || line[1] === " " || /^-+$/.test(line)))) {
    return `\\${line}`;
  }
  if (c === "#" && HEADING_MARKER.test(line)) return `\\${line}`;
  if (c === "=" && SETEXT_UNDERLINE.test(line)) return `\\${line}`;
  if (c >= "0" && c <= "9") return line.replace(ORDERED_MARKER, "$1\\$2");
  return line;
}

/** A URL for a link or image destination: characters that would end it early are percent-encoded. */
export function escapeUrl(url: string): string {
  return url.replace(/[\s()<>]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);
}

/** A link title in double quotes. */
export function escapeTitle(title: string): string {
  return ` "${title.replace(/\s+/g, " ").trim().replace(/["\\]/g, "\\$&")}"`;
}

function longestRun(text: string, ch: string): number {
  let best = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === ch) {
      run++;
      if (run > best) best = run;
    } else run = 0;
  }
  return best;
}

/** An inline code span whose fence is longer than any backtick run inside (GFM 6.1). */
export function codeSpan(text: string): string {
  if (text === "") return "";
  const fence = "`".repeat(longestRun(text, "`") + 1);
  const pad = text.startsWith("`") || text.endsWith("`") || (text.startsWith(" ") && text.endsWith(" ")) ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** The opening fence of a code block: at least three backticks, more than any run in the code. */
export function codeFence(code: string): string {
  return "`".repeat(Math.max(3, longestRun(code, "`") + 1));
}
