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

describe("answers collapsed under their question without a button", () => {
  const qa = (q: string, a: string) =>
    `<div class="faq-row"><div class="faq-q" role="presentation"><div class="q-text">${q}</div><span class="chevron"></span></div><div class="faq-a" style="height:0;visibility:hidden"><p>${a}</p></div></div>`;

  it("keeps the hidden answer after a line that asks a question", () => {
    const html = `<html><body><main><h1>Pet insurance</h1>${para("pet insurance plan", 3)}<section><h2>Pet insurance FAQs</h2>
      ${qa("What is pet insurance?", "It reimburses part or all of the vet bills for your pet's treatment, for a monthly premium.")}
      ${qa("Does it cover pre-existing conditions?", "Some plans do, so compare what each provider covers before you commit to one.")}</section></main></body></html>`;
    const t = text(html, "https://www.example.com/pet-insurance");
    for (const want of ["What is pet insurance?", "It reimburses part or all of the vet bills", "Some plans do, so compare"])
      expect(t).toContain(want);
  });

  it("still drops a hidden block after a statement, or after a breadcrumb ending in a question", () => {
    const html = `<html><body><main><h1>Pet insurance</h1>${para("pet insurance plan", 3)}
      <div class="row"><div class="label">Compare plans today</div><div style="display:none"><p>A hidden promotion a script shows to returning visitors only.</p></div></div>
      <div class="row"><ul class="crumbs"><li>Forums</li><li>Is my dog sick?</li></ul><div style="display:none"><p>You are using an out of date browser that may not show this page.</p></div></div>
      ${para("claim", 2)}</main></body></html>`;
    const t = text(html, "https://www.example.com/pet-insurance");
    expect(t).toContain("how the claim works");
    expect(t).not.toContain("hidden promotion");
    expect(t).not.toContain("out of date browser");
  });
});
