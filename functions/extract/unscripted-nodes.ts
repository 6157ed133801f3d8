import { EventTarget, parseHTML } from "linkedom";

/**
 * linkedom's Node extends its EventTarget, whose constructor gives every node (every element,
 * text node and attribute) an entry in a WeakMap of listeners. Parsed pages are read, never
 * scripted, and those entries were half the parse time (their construction and the garbage
 * collector's work on a WeakMap of a million keys). Node's base constructor is replaced by one
 * that does nothing: nodes have no listener registry, dispatching an event on one finds no
 * listener, and adding a listener throws instead of failing on the registry it lacks. The
 * window's EventTarget (`defaultView`) is not a node and keeps its listeners.
 *
 * Imported for this effect by parse.ts; it changes linkedom's classes for the whole process.
 */
class NoListeners {}

function nodeClass(): (new (...args: never[]) => unknown) | null {
  let c: unknown = parseHTML("<p></p>").document.constructor;
  while (typeof c === "function") {
    const base: unknown = Object.getPrototypeOf(c);
    if (base === EventTarget) return c as new (...args: never[]) => unknown;
    c = base;
  }
  return null;
}

const Node = nodeClass();
if (Node) {
  Object.setPrototypeOf(Node, NoListeners);
  Object.defineProperty(Node.prototype, "addEventListener", {
    configurable: true,
    writable: true,
    value() {
      throw new Error("event listeners are not supported on parsed pages (functions/extract/unscripted-nodes.ts)");
    },
  });
  Object.defineProperty(Node.prototype, "removeEventListener", { configurable: true, writable: true, value() {} });
}
