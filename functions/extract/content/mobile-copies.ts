/**
 * A phone layout's copy of a block the wide layout shows elsewhere: Bootstrap themes print a
 * product's name, an FAQ, an author's line or a menu item twice, once in an element hidden from a
 * breakpoint up ("d-block d-md-none", "d-lg-none") and once in the desktop's place. A reader sees
 * one; the extractor saw both. Such an element goes only when its words stand elsewhere in the
 * root: a phone-only block that says something of its own (a notice shown only on phones, the
 * mobile filter button) is not a copy, and an element shown again from a larger breakpoint up
 * ("d-sm-none d-md-block") is not phone-only.
 */

/** Hidden from a breakpoint up: Bootstrap 4/5 display utilities. */
const HIDDEN_FROM = /(^|\s)d-(sm|md|lg|xl|xxl)-none(\s|$)/;
/** Shown again from a breakpoint up (or hidden at every width: the hidden-element rules' case). */
const SHOWN_AGAIN =
  /(^|\s)d-(none|(sm|md|lg|xl|xxl)-(block|flex|inline|inline-block|inline-flex|grid|table|table-cell|table-row|contents))(\s|$)/;
/** Fewer letters than this can stand anywhere ("Color", "Only a few left"). */
const COPY_MIN = 12;

const key = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");

export function dropMobileCopies(root: Element): void {
  const copies: Element[] = [];
  for (const el of root.querySelectorAll("[class*='-none']")) {
    const cls = el.getAttribute("class") ?? "";
    if (!HIDDEN_FROM.test(cls) || SHOWN_AGAIN.test(cls)) continue;
    if (copies.some((c) => c.contains(el))) continue;
    copies.push(el);
  }
  if (copies.length === 0) return;
  const all = key(root.textContent ?? "");
  for (const el of copies) {
    const k = key(el.textContent ?? "");
    if (k.length < COPY_MIN) continue;
    const first = all.indexOf(k);
    // Its own words are one occurrence: a copy needs a second.
    if (first >= 0 && all.indexOf(k, first + 1) >= 0) el.remove();
  }
}
