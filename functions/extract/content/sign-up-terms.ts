/**
 * The terms printed under a sign-up or contact form: "By clicking Sign Me Up, you confirm you are
 * 16+ and agree to our Terms of Use", "By checking this box, I consent to receive text messages",
 * "By submitting this form, you acknowledge ...". The form's fields are gone before scoring; the
 * line that binds whoever sends it stays behind and reads as prose, but it is the form's, not the
 * page's. A line is known by how it opens: "By" and the act of sending (clicking, checking,
 * submitting, signing up, subscribing ...), then, in the same sentence, someone agreeing,
 * consenting, accepting or confirming. Prose that opens with the same words for another purpose
 * ("By clicking the button several times, you'll see ...", "By providing customers with deals,
 * businesses ...") stays.
 */
import { ELEMENT_NODE, TEXT_NODE } from "./dom.ts";

const TERMS =
  /^by (?:checking|ticking|clicking|tapping|pressing|submitting|sending|entering|providing|signing up|subscribing|registering|joining|continuing|completing)\b[^.!?]{0,120}?\b(?:you|i|we)\b[^.!?]{0,40}?\b(?:agree|consent|accept|acknowledge|confirm|certify|authori[sz]e|understand)/i;
/**
 * The form's other fine print: how what is sent will be handled ("Your personal information will
 * be handled in accordance with our Privacy Statement") and the key to its fields ("Required
 * fields are marked with an asterisk").
 */
const FORM_NOTES =
  /^(?:(?:your|the) (?:personal )?(?:information|data|details)(?: you (?:provide|submit|share))? will (?:only )?be (?:handled|processed|used|stored|treated)\b[^.!?]{0,40}?\b(?:privacy|in accordance|according to)|required fields are marked\b|\* ?(?:indicates|denotes) (?:a )?required\b)/i;
/** A block longer than this is no form's line (a page of terms of its own). */
const TERMS_CHARS = 1500;

/** The first non-blank text inside `el`, looking into its first elements (`<label><input>By ...`). */
function opening(el: Element): string {
  for (let c = el.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === TEXT_NODE) {
      const t = (c as Text).data.trim();
      if (t) return t;
    } else if (c.nodeType === ELEMENT_NODE) {
      return "";
    }
  }
  return "";
}

/** Removes the blocks inside `root` that are a form's sign-up terms and notes. */
export function dropSignUpTerms(root: Element): void {
  const doomed: Element[] = [];
  for (const el of root.querySelectorAll("p, div, span, label, small, li, td")) {
    if (!/^(?:by|your|the|required|\*)(?:\s|$)/i.test(opening(el))) continue;
    const text = (el.textContent ?? "").replace(/\s+/g, " ").trim();
    if (text.length <= TERMS_CHARS && (TERMS.test(text) || FORM_NOTES.test(text))) doomed.push(el);
  }
  for (const el of doomed) if (root.contains(el)) el.remove();
}
