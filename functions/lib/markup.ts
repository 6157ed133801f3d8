/**
 * Markup passes in one reading of the text. The regex forms they replace (`/<[^>]*>/g`, a lazy
 * `/<(script|…)\b[\s\S]*?<\/\1>/gi`) read to the end of the text from every "<" or opening tag
 * that nothing closes, so a page of many of them cost time quadratic in their number (100,000
 * unclosed tags: minutes). Each function gives what its regex gave.
 */

/**
 * `s` with each tag, from a "<" to the first ">" after it, replaced by `by`: `s.replace(/<[^>]*>/g,
 * by)`, or with `nonEmpty` `/<[^>]+>/g` ("<>" is no tag). No ">" after a "<": none after a later one.
 */
export function replaceTags(s: string, by: string, nonEmpty = false): string {
  let out = "";
  let last = 0;
  let from = 0;
  for (;;) {
    const lt = s.indexOf("<", from);
    if (lt < 0) break;
    const gt = s.indexOf(">", lt + 1);
    if (gt < 0) break;
    if (nonEmpty && gt === lt + 1) {
      from = lt + 1;
      continue;
    }
    out += s.slice(last, lt) + by;
    last = gt + 1;
    from = last;
  }
  return out + s.slice(last);
}

/**
 * Where the elements `open` finds (a global regex whose first group is the name) run to the first
 * closing tag `close(name)` finds after them, as [start, end) pairs in order, none inside another:
 * what `/<(script|…)\b[\s\S]*?<\/\1\s*>/gi` matches. A name with no closing tag after one of its
 * openings has none after the later ones: those are skipped without a search.
 */
export function elementSpans(s: string, open: RegExp, close: (name: string) => RegExp): [number, number][] {
  const spans: [number, number][] = [];
  const unclosed = new Set<string>();
  open.lastIndex = 0;
  for (let m = open.exec(s); m; m = open.exec(s)) {
    const name = (m[1] ?? "").toLowerCase();
    if (unclosed.has(name)) continue;
    const c = close(name);
    c.lastIndex = m.index + m[0].length;
    const found = c.exec(s);
    if (!found) {
      unclosed.add(name);
      continue;
    }
    const end = found.index + found[0].length;
    spans.push([m.index, end]);
    open.lastIndex = end;
  }
  return spans;
}

/**
 * `s` without the tags whose starts `start` (a global regex) finds, each up to the first ">" after
 * it: what `/<(?:…)[^>]*>/gi` removes. No ">" after a start means none after the later ones.
 */
export function removeTags(s: string, start: RegExp): string {
  let out = "";
  let last = 0;
  start.lastIndex = 0;
  for (let m = start.exec(s); m; m = start.exec(s)) {
    const end = s.indexOf(">", m.index + m[0].length);
    if (end < 0) break;
    out += s.slice(last, m.index);
    last = end + 1;
    start.lastIndex = last;
  }
  return out + s.slice(last);
}

/**
 * `s` without each stretch from `open` to the first `close` after it (comments: "<!--", "-->"):
 * what `/<!--[\s\S]*?-->/g` removes. An `open` nothing closes stays, with the text after it.
 */
export function removeBetween(s: string, open: string, close: string): string {
  let out = "";
  let last = 0;
  for (let start = s.indexOf(open); start >= 0; start = s.indexOf(open, last)) {
    const end = s.indexOf(close, start + open.length);
    if (end < 0) break;
    out += s.slice(last, start);
    last = end + close.length;
  }
  return out + s.slice(last);
}

/**
 * How many start tags the markup holds, counted as a parser would open them: each `<` followed by an
 * ASCII letter. Comments, scripts and attribute values are not told apart, so the count is an upper
 * bound of the elements a parser builds; one pass, no allocation.
 */
export function countStartTags(s: string): number {
  let count = 0;
  for (let i = s.indexOf("<"); i >= 0; i = s.indexOf("<", i + 1)) {
    const c = s.charCodeAt(i + 1) | 0x20;
    if (c >= 0x61 && c <= 0x7a) count++;
  }
  return count;
}
