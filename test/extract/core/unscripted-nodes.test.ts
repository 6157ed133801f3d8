import { Event, EventTarget } from "linkedom";
import { describe, expect, it } from "vitest";
import { parseDocument } from "../../../functions/extract/parse.ts";

describe("parsed pages carry no listener registry (functions/extract/unscripted-nodes.ts)", () => {
  it("builds nodes without linkedom's EventTarget constructor", () => {
    const doc = parseDocument("<html><body><p class='a'>Text</p></body></html>");
    let c: unknown = doc.constructor;
    const chain: unknown[] = [];
    while (typeof c === "function" && c !== Function.prototype) {
      chain.push(c);
      c = Object.getPrototypeOf(c);
    }
    expect(chain).not.toContain(EventTarget);
    expect(doc.querySelector("p")?.textContent).toBe("Text");
  });

  it("says so when a listener is added, and dispatches to none", () => {
    const p = parseDocument("<p>x</p>").querySelector("p") as Element;
    expect(() => p.addEventListener("click", () => {})).toThrow(/not supported on parsed pages/);
    expect(p.dispatchEvent(new Event("click") as unknown as globalThis.Event)).toBe(true);
  });
});
