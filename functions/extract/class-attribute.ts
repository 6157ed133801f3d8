import { parseHTML } from "linkedom";

/**
 * linkedom's parser sets every class attribute through the `className` setter, which builds the
 * element's class list (a Set of its tokens) and writes the tokens back, deduplicated and joined
 * by single spaces, to the attribute. Most of those lists are never read. On an element that has
 * the attribute and no list yet, the setter here writes the same normalised string to the
 * attribute and leaves the list to be built on first use, from that string (the same tokens in
 * the same order). Anything else (an existing list, no attribute yet) goes to linkedom's setter.
 * `getAttribute("class")`, which linkedom answers by joining the list's tokens (building the list
 * first), reads the attribute instead, as linkedom's own selector matching does.
 *
 * Imported for this effect by parse.ts; it changes linkedom's Element for the whole process.
 */
type Fields = Record<string | symbol, unknown>;

const sample = parseHTML("<p></p>").document.createElement("div");
const CLASS_LIST = Object.getOwnPropertySymbols(sample).find((s) => s.description === "classList");

function classNameOwner(): object | null {
  for (let p: object | null = Object.getPrototypeOf(sample); p; p = Object.getPrototypeOf(p)) {
    if (Object.getOwnPropertyDescriptor(p, "className")?.set) return p;
  }
  return null;
}

/** The class string as linkedom's class list writes it: tokens once each, in order, one space apart. */
function normalised(value: unknown): string {
  const s = String(value);
  // One class name (most elements): nothing to split.
  if (!/\s/.test(s)) return s;
  const tokens = new Set<string>();
  for (const t of s.split(/\s+/)) if (t) tokens.add(t);
  return [...tokens].join(" ");
}

const owner = classNameOwner();
const descriptor = owner && Object.getOwnPropertyDescriptor(owner, "className");
const linkedomSetter = descriptor?.set;
if (owner && descriptor && linkedomSetter && CLASS_LIST && (sample as unknown as Fields)[CLASS_LIST] === null) {
  Object.defineProperty(owner, "className", {
    ...descriptor,
    set(this: Element, value: unknown) {
      const attribute = (this as unknown as Fields)[CLASS_LIST] ? null : this.getAttributeNode("class");
      if (attribute) attribute.value = normalised(value);
      else linkedomSetter.call(this, value);
    },
  });
  // The attribute holds what linkedom's getter would join from the list; without one it reads "".
  const getAttribute = (owner as { getAttribute(name: string): string | null }).getAttribute;
  Object.defineProperty(owner, "getAttribute", {
    configurable: true,
    writable: true,
    value(this: Element, name: string): string | null {
      if (name !== "class") return getAttribute.call(this, name);
      return this.getAttributeNode("class")?.value ?? "";
    },
  });
}
