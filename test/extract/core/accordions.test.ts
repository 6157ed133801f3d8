import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string, url = "https://www.example.com/services/apps") => extractMainText(html, url).text;

describe("accordions toggled by a button", () => {
  const qa = (q: string, a: string) =>
    `<div class="faq-item"><button type="button"><h5>${q}</h5><div class="arrow"></div></button><div class="answer hidden"><p>${a}</p></div></div>`;

  it("keeps the question in the button and the collapsed answer after it", () => {
    const html = `<html><body><main><h1>App development</h1>${para("app", 3)}<section><h2>Frequently asked questions</h2>
      ${qa("How much does an app cost?", "The final cost depends on the features, the platforms and the design you choose for it.")}
      ${qa("How long does it take?", "A first version usually takes two to three months, depending on its scope and reviews.")}</section></main></body></html>`;
    const t = text(html);
    for (const want of ["How much does an app cost?", "The final cost depends on the features", "A first version usually takes"])
      expect(t).toContain(want);
  });

  it("still drops a plain button's label and the hidden block after it", () => {
    const html = `<html><body><main><h1>App development</h1>${para("app", 3)}
      <div class="menu-wrap"><button type="button">Open menu</button><div class="hidden"><p>Hidden menu copy that a script shows on small screens only.</p></div></div>
      ${para("design", 2)}</main></body></html>`;
    const t = text(html);
    expect(t).toContain("how the design works");
    expect(t).not.toContain("Open menu");
    expect(t).not.toContain("Hidden menu copy");
  });
});
