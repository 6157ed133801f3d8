import { describe, expect, it } from "vitest";
import { parseDocument } from "../../../functions/extract/parse.ts";

/** The element's class list slot (linkedom's private symbol): null until the list is built. */
const listOf = (el: Element) =>
  (el as unknown as Record<symbol, unknown>)[
    Object.getOwnPropertySymbols(el).find((s) => s.description === "classList") as symbol
  ];

describe("class attributes without class lists (functions/extract/class-attribute.ts)", () => {
  it("parses a class into the attribute alone, normalised as linkedom's list writes it", () => {
    const div = parseDocument("<div class='  b a\tb  c '>x</div>").querySelector("div") as Element;
    expect(listOf(div)).toBeNull();
    expect(div.getAttribute("class")).toBe("b a c");
    expect(div.outerHTML).toBe('<div class="b a c">x</div>');
    expect(parseDocument("<p>x</p>").querySelector("p")?.getAttribute("class")).toBe("");
  });

  it("builds the list from the attribute on first use, and keeps both in step", () => {
    const doc = parseDocument("<div class='b a b'>x</div><p>y</p>");
    const div = doc.querySelector("div") as Element;
    expect([...div.classList]).toEqual(["b", "a"]);
    div.classList.add("c");
    expect(div.getAttribute("class")).toBe("b a c");
    div.setAttribute("class", "d  d e");
    expect(div.className).toBe("d e");
    expect(doc.querySelector(".e")).toBe(div);
    const p = doc.querySelector("p") as Element;
    p.className = "f g";
    expect(p.getAttribute("class")).toBe("f g");
    p.removeAttribute("class");
    expect(p.getAttribute("class")).toBe("");
    expect(p.hasAttribute("class")).toBe(false);
  });
});
