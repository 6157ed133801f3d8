/**
 * Text printed twice for screen readers: a label with an inline copy of itself inside it
 * (`<span>EUR 163.12<span class="clipped">EUR 163.12</span></span>`), the copy clipped out of
 * sight by the stylesheet. A reader sees the text once; the copy goes. Only an element that is
 * its parent's whole text beside one text node equal to it: a phrase repeated on purpose in a
 * sentence ("Ha ha") has other text around it or differs in case. A fuller copy after the label
 * ("See all details" then, clipped, "See all details on coverage") keeps its words and the
 * label's go: the copy starts with the label and a space, so a word that merely begins the same
 * way ("In stock" / "In stockroom ...") is no copy.
 */
import { TEXT_NODE } from "./dom.ts";

/** Removes the inline copies of their parent's text inside `root`. */
export function dropEchoedText(root: Element): void {
  const doomed: Element[] = [];
  const labels: ChildNode[] = [];
  for (const el of root.querySelectorAll("span")) {
    if (el.firstElementChild) continue;
    const parent = el.parentElement;
    // Exactly two child nodes, read from the ends (childNodes builds the whole list each time:
    // quadratic where thousands of spans share a parent).
    const first = parent?.firstChild;
    if (!parent || !first || first === parent.lastChild || first.nextSibling !== parent.lastChild) continue;
    const other = first === el ? parent.lastChild : first;
    if (!other || other.nodeType !== TEXT_NODE) continue;
    const copy = (el.textContent ?? "").trim();
    const shown = (other.textContent ?? "").trim();
    if (!/[\p{L}\p{N}]/u.test(copy)) continue;
    if (copy === shown) doomed.push(el);
    // A fuller copy after the label ("See all details" + "See all details on coverage"): the
    // copy says it all, the label's words go.
    else if (other === parent.firstChild && /[\p{L}\p{N}]/u.test(shown) && copy.startsWith(`${shown} `)) labels.push(other);
  }
  for (const el of doomed) el.remove();
  for (const text of labels) text.remove();
}
