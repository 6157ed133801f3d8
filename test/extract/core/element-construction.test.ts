import { describe, expect, it } from "vitest";
import { parseDocument } from "../../../functions/extract/parse.ts";

const chain = (el: Element) => {
  const names: string[] = [];
  for (let c: unknown = el.constructor; typeof c === "function" && c !== Function.prototype; c = Object.getPrototypeOf(c))
    names.push((c as { name: string }).name);
  return names;
};

describe("elements built without linkedom's ParentNode constructor (functions/extract/element-construction.ts)", () => {
  it("is in use", () => {
    expect(chain(parseDocument("<div>x</div>").querySelector("div") as Element)).toContain("ElementBase");
  });

  it("builds elements the DOM operations work on", () => {
    const doc = parseDocument("<html><body><div id='a' class=' x  y x'>one <b>two</b></div><p>three</p></body></html>");
    const div = doc.querySelector("#a") as Element;
    expect(div.getAttribute("class")).toBe("x y");
    expect(div.textContent).toBe("one two");
    const p = doc.querySelector("p") as Element;
    const made = doc.createElement("section");
    made.append(p);
    div.after(made);
    expect(doc.body.innerHTML).toBe('<div id="a" class="x y">one <b>two</b></div><section><p>three</p></section>');
    expect((made.cloneNode(true) as Element).outerHTML).toBe("<section><p>three</p></section>");
    div.remove();
    expect(doc.body.firstElementChild).toBe(made);
    expect(made.lastChild?.textContent).toBe("three");
    expect(doc.querySelectorAll("section > p").length).toBe(1);
  });
});
