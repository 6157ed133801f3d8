import { NEAR } from "./abridge.ts";
import type { OutsideScope, PageElement, PageState } from "./types.ts";

/**
 * The text the model receives: a three-line header (address, title, scroll position; a fourth when
 * text far from the viewport was abridged, saying how to read it) and the page's visible text with
 * each `[n]` marker expanded to `[n role "name" state…]`. The name is left out where the text already
 * says it (a link's own words right after the marker, a field's label right before it), so that
 * nothing is read twice; beyond `near` (see `abridge.ts`) names are cut to 50 characters, and the
 * start of an element's own text says its name. A link's address is shown only when it has no name,
 * without the page's own host.
 */

const quote = (s: string) => JSON.stringify(s);
/** Characters of a name shown for an element beyond `near`. */
const FAR_NAME = 50;
/** Characters of a name that the text after an element beyond `near` must start with to say it. */
const FAR_SAID = 40;
const norm = (s: string) => s.toLowerCase().replace(/\s+/g, " ").trim();

/** Where a link goes, without the scheme, and without the host when it is the page's own. */
const shortHref = (href: string, page: string): string => {
  try {
    const u = new URL(href);
    const s = `${u.host === page ? "" : u.hostname}${u.pathname}${u.search}`;
    return s.length > 60 ? `${s.slice(0, 59)}…` : s;
  } catch {
    return href.slice(0, 60);
  }
};

/** `s` cut to `n` characters, "…" marking the cut. */
const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1).trimEnd()}…` : s);

function describe(el: PageElement, before: string, after: string, host: string, far: boolean): string {
  const parts = [String(el.index), el.type && el.role === "textbox" && el.type !== "text" ? `${el.role}:${el.type}` : el.role];
  // A name that is one phrase said over ("Next Next", from an icon's label and hidden text) is said once.
  const label = el.name.replace(/^(.+?)(?:\s+\1)+$/, "$1");
  const name = norm(label);
  // A name cut short ("…") is said when the text goes on with its start (beyond `near`, where the
  // text of elements is cut shorter, with its first words); the text after the marker may begin
  // with further markers (an image link right before the title link to the same place).
  const stem = (name.endsWith("…") ? name.slice(0, -1) : name).slice(0, far ? FAR_SAID : undefined);
  const next = norm(after.replace(/^(\s*\[\d+\])+/, ""));
  const said = name.length > 0 && (next.startsWith(stem) || norm(before.slice(-name.length - 40)).includes(name));
  if (name && !said) parts.push(quote(far ? cut(label, FAR_NAME) : label));
  // A link with no words (an image without alt text): where it goes is all there is to tell.
  if (!name && el.href) parts.push(`href=${quote(shortHref(el.href, host))}`);
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
  if (state.abridgedChars)
    header.push("Far from the viewport only headings and elements are shown; scroll there or use extract to read the rest.");
  let host = "";
  try {
    host = new URL(state.url).host;
  } catch {}
  const near = { top: -NEAR * height, bottom: (1 + NEAR) * height };
  const text = state.text.replace(/\[(\d+)\]/g, (marker, n: string, offset: number, whole: string) => {
    const el = byIndex.get(Number(n));
    return el
      ? describe(
          el,
          whole.slice(Math.max(0, offset - 120), offset),
          whole.slice(offset + marker.length, offset + marker.length + 160),
          host,
          el.box.y > near.bottom || el.box.y + el.box.h < near.top,
        )
      : marker;
  });
  const tail = state.truncatedChars ? `\n(${state.truncatedChars} more characters of page text left out)` : "";
  const { above: up, below: down } = state.outside ?? {};
  const lead = up && (up.elements || up.chars) ? `${outsideLine(up, "above", "up")}\n` : "";
  const end = down && (down.elements || down.chars) ? `\n${outsideLine(down, "below", "down")}` : "";
  return `${header.join("\n")}\n---\n${lead}${text}${tail}${end}`;
}

/** What a viewport-scoped state left out on one side, and how to see it. */
function outsideLine(o: OutsideScope, side: string, way: string): string {
  const n = (x: number) => x.toLocaleString("en-US");
  return `(… ${n(o.px)} px ${side} not shown: ${n(o.elements)} elements, ${n(o.chars)} characters of text; scroll ${way}, or read_page for the whole page)`;
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
