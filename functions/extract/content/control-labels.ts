/**
 * Controls printed on every card of a grid: checkbox labels ("Compare", "Add to compare") and
 * elements scripted into buttons ("Add to wishlist"). The boxes and <button>s go with the junk in
 * the pruning, and a label alone tells the reader nothing. Labels are found before the pruning
 * (the box says what its label is); both are removed once the root is chosen, so they weigh in
 * the scoring as before. One text on three or more of them marks a card's control: labels and
 * buttons whose texts differ may be what the page lists (a checklist, a topic picker).
 */
import { tagOf } from "./dom.ts";

/** A checkbox's label says this much at most ("Compare", "Add to compare"). */
const LABEL_CHARS = 40;
/** The same label on this many boxes is a control repeated on every card or row. */
const REPEATS = 3;

/**
 * The short labels that three or more of the page's checkboxes share: a label is a box's when it
 * holds the box, follows it, or names it (for="id"). A radio button's label (a product's colour or
 * size) is no checkbox's.
 */
export function checkboxLabels(body: Element): Element[] {
  const boxes = body.querySelectorAll('input[type="checkbox" i]');
  if (boxes.length === 0) return [];
  const ids = new Set<string>();
  const labels = new Set<Element>();
  for (const box of boxes) {
    const id = box.getAttribute("id");
    if (id) ids.add(id);
    const label = box.closest("label") ?? box.nextElementSibling;
    if (label && tagOf(label) === "label") labels.add(label);
  }
  if (ids.size > 0)
    for (const label of body.querySelectorAll("label[for]")) if (ids.has(label.getAttribute("for") ?? "")) labels.add(label);
  // A control on every card says the same thing ("Compare"); labels that differ may be what a
  // list is made of (a checklist's items, entries picked for comparison by their names).
  const texts = new Map<string, number>();
  const short: [Element, string][] = [];
  for (const label of labels) {
    const text = (label.textContent ?? "").replace(/\s+/g, " ").trim();
    if (text.length === 0 || text.length > LABEL_CHARS) continue;
    short.push([label, text]);
    texts.set(text, (texts.get(text) ?? 0) + 1);
  }
  return short.filter(([, text]) => (texts.get(text) ?? 0) >= REPEATS).map(([label]) => label);
}

/** Removes the labels that lie inside `root`. */
export function dropCheckboxLabels(root: Element, labels: Element[]): void {
  for (const label of labels) if (root.contains(label)) label.remove();
}

/**
 * Elements scripted into buttons (role="button") that three or more cards print with one text
 * ("Add to wishlist", "Compare"): <button> elements go before scoring, and these are the same
 * controls. Toggles that show a panel (aria-expanded, aria-controls) and buttons whose texts
 * differ (a topic picker's topics) stay.
 */
export function dropRepeatedControls(root: Element): void {
  const groups = new Map<string, Element[]>();
  for (const el of root.querySelectorAll('[role="button"]')) {
    if (el.hasAttribute("aria-expanded") || el.hasAttribute("aria-controls")) continue;
    const text = (el.textContent ?? "").replace(/\s+/g, " ").trim();
    if (text.length === 0 || text.length > LABEL_CHARS) continue;
    const group = groups.get(text);
    if (group) group.push(el);
    else groups.set(text, [el]);
  }
  for (const group of groups.values()) if (group.length >= REPEATS) for (const el of group) el.remove();
}
