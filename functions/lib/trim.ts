/**
 * `s` without the run of characters `drop` accepts at its end (a host's trailing dots, a path's
 * trailing slashes). Written as a loop, not as `s.replace(/x+$/, "")`: V8 runs that regex from each
 * character of a run that does not reach the end, so a long run inside the text is quadratic ("a",
 * 40,000 tabs, "b" took 0.7 s; a page's <pre> of a million, minutes). This reads back once.
 */
export function trimEndWhere(s: string, drop: (ch: string) => boolean): string {
  let end = s.length;
  while (end > 0 && drop(s.charAt(end - 1))) end--;
  return end === s.length ? s : s.slice(0, end);
}
