/**
 * Star-rating inputs: a row of links or buttons, one per star, each labelled with its place on
 * the scale ("1 of 5 stars", "2 of 5 stars" ... "5 of 5 stars", or "1 star" ... "5 stars"), with
 * a prompt beside it ("Rate this book", "Clear rating"). It is the control a reader clicks to give
 * a rating, not a rating the item has, and a list page prints it on every entry: five labels and
 * a prompt per entry read as noise between the entries. The scale is known by its steps: three or
 * more side by side, counting up from 1 in order. A rating shown as a value ("4.3 out of 5 stars",
 * "4 stars"), a filter's "4 stars & up" and a review histogram (counting down, with counts) stay.
 */
import { hasOneChild, leafText, textStats, visibleLength } from "./dom.ts";

/** One star of a rating scale: "1 of 5 stars", "Rate 2 out of 5", "3 stars", "4/5 stars". */
const STEP = /^(?:rate\s+)?(\d{1,2})(?:\s*(?:of|out of|\/)\s*(\d{1,2}))?\s*(?:stars?)?$/i;
/** A scale has at least this many steps. */
const STEPS_MIN = 3;
/** A step's label is short ("Rate 5 out of 10 stars" is the longest kind). */
const STEP_CHARS = 24;
/** A scale's text is its steps' labels and nothing else: this many other characters at most. */
const OTHER_CHARS = 10;
/** The prompt and reset beside a scale ("Rate this book", "Clear rating", "Your rating:"). */
const PROMPT = /^(?:rate(?: (?:this|it)\b.*)?|clear(?: (?:my )?rating)?|(?:your|my) rating|rating)\W*$/i;
const PROMPT_CHARS = 40;

/** The place on the scale a step's label names, or 0 when the label is no step. */
function stepOf(text: string): number {
  const m = STEP.exec(text);
  if (!m) return 0;
  // A bare number ("3") is no step: a page counter or a list's numbering reads the same.
  if (!m[2] && !/star/i.test(text)) return 0;
  const n = Number(m[1]);
  return m[2] && n > Number(m[2]) ? 0 : n;
}

/** The trimmed text of `el` when it is short (textContent on small subtrees only). */
function shortText(el: Element): string | null {
  const text = (el.textContent ?? "").replace(/\s+/g, " ").trim();
  return text.length <= PROMPT_CHARS ? text : null;
}

/**
 * Removes the star-rating inputs inside `root`, with the prompts beside them. One walk: each leaf
 * labelled as a step is climbed to the largest element that is only it (a link around a span);
 * steps that share a parent and count 1, 2, 3 ... in order make a scale.
 */
export function dropRatingInputs(root: Element): void {
  const scales = new Map<Element, { steps: number[]; chars: number }>();
  for (const el of root.querySelectorAll("a, button, span, label, li, div")) {
    const text = leafText(el);
    if (!text || text.length > STEP_CHARS) continue;
    const n = stepOf(text);
    if (n === 0) continue;
    let step = el;
    while (step.parentElement && step.parentElement !== root && hasOneChild(step.parentElement)) step = step.parentElement;
    const parent = step.parentElement;
    if (!parent) continue;
    const seen = scales.get(parent);
    const chars = visibleLength(text);
    if (seen) {
      seen.steps.push(n);
      seen.chars += chars;
    } else scales.set(parent, { steps: [n], chars });
  }
  for (const [scale, { steps, chars }] of scales) {
    if (steps.length < STEPS_MIN || !steps.every((n, i) => n === i + 1) || !root.contains(scale)) continue;
    // The scale holds its steps and nothing else (not a histogram's counts, not an entry's text).
    if (textStats(scale).chars > chars + OTHER_CHARS) continue;
    const box = scale.parentElement;
    scale.remove();
    if (!box || box === root) continue;
    for (let c = box.firstElementChild; c; ) {
      const next = c.nextElementSibling;
      const text = shortText(c);
      if (text !== null && PROMPT.test(text)) c.remove();
      c = next;
    }
  }
}
