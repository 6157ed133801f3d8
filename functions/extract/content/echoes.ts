/**
 * Text printed twice for screen readers: a label with an inline copy of itself inside it
 * (`<span>EUR 163.12<span class="clipped">EUR 163.12</span></span>`), the copy clipped out of
 * sight by the stylesheet. A reader sees the text once; the copy goes. Only an element that is
 * its parent's whole text beside one text node equal to it: a phrase repeated on purpose in a
 * sentence ("Ha ha") has other text around it or differs in case.
 */
import { TEXT_NODE } from "./dom.ts";

/** Removes the inline copies of their parent's text inside `root`. */
export function dropEchoedText(root: Element): void {
  const doomed: Element[] = [];
  for (const el of root.querySelectorAll("span")) {
    if (el.firstElementChild) continue;
    const parent = el.parentElement;
    if (parent?.childNodes.length !== 2) continue;
    const other = parent.firstChild === el ? parent.lastChild : parent.firstChild;
    if (!other || other.nodeType !== TEXT_NODE) continue;
    const copy = (el.textContent ?? "").trim();
    if (/[\p{L}\p{N}]/u.test(copy) && copy === (other.textContent ?? "").trim()) doomed.push(el);
  }
  for (const el of doomed) el.remove();
}
