import { EventTarget, parseHTML } from "linkedom";

/**
 * linkedom gives every element an end marker (the node closing its children in the document's
 * linked list), built in its ParentNode constructor as an object literal with symbol keys: V8
 * builds such a literal a property at a time, and this was a fifth of the parse time. Element's
 * base constructor is replaced by one that sets the same fields in the same order, the marker
 * built by a class (one shape, set up once). ParentNode's prototype, statics and methods stay.
 *
 * The replacement checks itself on load: an element it builds must have the same own keys and
 * the same marker as one linkedom built; otherwise linkedom's constructor is kept (a new linkedom
 * version that builds elements another way then parses slower, not differently).
 * Imported for this effect by parse.ts; it changes linkedom's Element for the whole process.
 */
type Ctor = (new (...args: unknown[]) => object) & { prototype: object };
type Fields = Record<string | symbol, unknown>;

const document = parseHTML("<p></p>").document;
const sample = document.createElement("div") as unknown as Fields;
const symbol = (owner: object, name: string) => Object.getOwnPropertySymbols(owner).find((s) => s.description === name);
const NEXT = symbol(sample, "next");
const PREV = symbol(sample, "prev");
const END = symbol(sample, "end");
const PRIVATE = symbol(sample, "private");
const endOf = (el: Fields) => el[END as symbol] as Fields;
const START = END && symbol(endOf(sample), "start");

function elementClass(): Ctor | null {
  let c: unknown = Object.getPrototypeOf(sample).constructor;
  while (typeof c === "function" && !Object.hasOwn(c.prototype, "getAttributeNode")) c = Object.getPrototypeOf(c);
  return typeof c === "function" ? (c as Ctor) : null;
}

/** Own keys and the values that do not point back at the element, as one comparable string. */
function layout(el: Fields): string {
  const describe = (o: Fields, self: unknown) =>
    Reflect.ownKeys(o)
      .map((k) => `${String(k)}=${o[k] === self ? "self" : typeof o[k] === "object" && o[k] !== null ? "object" : String(o[k])}`)
      .join(",");
  return `${describe(el, el)} | ${describe(endOf(el), el)}`;
}

const Element = elementClass();
const ParentNode = Element && (Object.getPrototypeOf(Element) as Ctor);
// Only over unscripted-nodes.ts: Node's own base constructor must build nothing to be skipped.
const listenerless = ParentNode && Object.getPrototypeOf(Object.getPrototypeOf(ParentNode)) !== EventTarget;
if (Element && ParentNode && listenerless && NEXT && PREV && END && PRIVATE && START) {
  const endType = endOf(sample).nodeType;
  class EndMarker {
    constructor(start: object, ownerDocument: unknown) {
      const self = this as unknown as Fields;
      self[NEXT as symbol] = null;
      self[PREV as symbol] = start;
      self[START as symbol] = start;
      self.nodeType = endType;
      self.ownerDocument = ownerDocument;
      self.parentNode = null;
    }
  }
  // Node's constructor (its base builds nothing: unscripted-nodes.ts), then ParentNode's.
  function ElementBase(this: Fields, ownerDocument: unknown, localName: unknown, nodeType: unknown) {
    this.ownerDocument = ownerDocument;
    this.localName = localName;
    this.nodeType = nodeType;
    this.parentNode = null;
    this[NEXT as symbol] = null;
    this[PREV as symbol] = null;
    this[PRIVATE as symbol] = null;
    this[NEXT as symbol] = this[END as symbol] = new EndMarker(this, this.ownerDocument);
  }
  ElementBase.prototype = ParentNode.prototype;
  Object.setPrototypeOf(ElementBase, ParentNode);
  const before = layout(document.createElement("div") as unknown as Fields);
  Object.setPrototypeOf(Element, ElementBase);
  if (layout(document.createElement("div") as unknown as Fields) !== before) Object.setPrototypeOf(Element, ParentNode);
}
