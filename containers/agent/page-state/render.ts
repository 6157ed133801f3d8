import type { PageElement, PageState } from "./types.ts";

/**
 * The text the model receives: a three-line header (address, title, scroll position) and the page's
 * visible text with each `[n]` marker expanded to `[n role "name" state…]`. The name is left out
 * where the text already says it (a link's own words right after the marker, a field's label right
 * before it), so that nothing is read twice.
 */

const quote = (s: string) => JSON.stringify(s);
const norm = (s: string) => s.toLowerCase().replace(/\s+/g, " ").trim();

const shortHref = (href: string): string => {
  try {
    const u = new URL(href);
    const s = `${u.hostname}${u.pathname}${u.search}`;
    return s.length > 80 ? `${s.slice(0, 79)}…` : s;
  } catch {
    return href.slice(0, 80);
  }
};

function describe(el: PageElement, before: string, after: string): string {
  const parts = [String(el.index), el.type && el.role === "textbox" && el.type !== "text" ? `${el.role}:${el.type}` : el.role];
  const name = norm(el.name);
  const said = name.length > 0 && (norm(after).startsWith(name) || norm(before.slice(-name.length - 40)).includes(name));
  if (name && !said) parts.push(quote(el.name));
  // A link with no words (an image without alt text): where it goes is all there is to tell.
  if (!name && el.href) parts.push(`href=${quote(shortHref(el.href))}`);
  if (el.value !== undefined) parts.push(`=${quote(el.value)}`);
  else if (el.placeholder && norm(el.placeholder) !== name) parts.push(`placeholder=${quote(el.placeholder)}`);
  if (el.filled) parts.push("filled");
  if (el.checked !== undefined) parts.push(el.checked ? "checked" : "unchecked");
  if (el.selected) parts.push("selected");
  if (el.expanded !== undefined) parts.push(el.expanded ? "expanded" : "collapsed");
  if (el.disabled) parts.push("disabled");
  if (el.options?.length) parts.push(`options:${el.options.join("|")}`);
  return `[${parts.join(" ")}]`;
}

export function renderPageState(state: PageState): string {
  const byIndex = new Map(state.elements.map((e) => [e.index, e]));
  const { x, y, width, height, pageWidth, pageHeight } = state.scroll;
  const below = Math.max(0, pageHeight - y - height);
  const right = Math.max(0, pageWidth - x - width);
  const header = [
    `URL: ${state.url}`,
    `Title: ${state.title}`,
    `Viewport ${width}x${height} at (${x},${y}) of ${pageWidth}x${pageHeight}: ${y}px above, ${below}px below${right ? `, ${right}px to the right` : ""}`,
  ];
  if (state.modal) header.push("A modal dialog is open: only its elements can be used.");
  const text = state.text.replace(/\[(\d+)\]/g, (marker, n: string, offset: number, whole: string) => {
    const el = byIndex.get(Number(n));
    return el
      ? describe(
          el,
          whole.slice(Math.max(0, offset - 120), offset),
          whole.slice(offset + marker.length, offset + marker.length + 120),
        )
      : marker;
  });
  const tail = state.truncatedChars ? `\n(${state.truncatedChars} more characters of page text left out)` : "";
  return `${header.join("\n")}\n---\n${text}${tail}`;
}

/**
 * Approximate token count of `text` for budgeting and the size benchmark, without a tokenizer
 * (none is a dependency): BPE vocabularies of current models (cl100k, o200k, Claude's) make a common
 * English word about one token and split long or rare ones, so a run of letters counts one token per
 * 8 letters (rounded up; CJK one per character), a run of digits one per 3 digits (numbers are cut
 * into groups of three), and every other visible character (punctuation, brackets, quotes) one
 * token; whitespace is free (merged into the next word). A heuristic not checked against a real
 * tokenizer here: compare sizes made with the same function, and see chars/4 beside it.
 */
export function approxTokens(text: string): number {
  let tokens = 0;
  for (const m of text.matchAll(/\p{L}+|\p{N}+|\S/gu)) {
    const s = m[0];
    if (/^\p{L}/u.test(s))
      tokens += /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(s) ? s.length : Math.ceil(s.length / 8);
    else if (/^\p{N}/u.test(s)) tokens += Math.ceil(s.length / 3);
    else tokens += 1;
  }
  return tokens;
}
