import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string, url = "https://example.com/products/yoga-mat") => extractMainText(html, url).text;

const legal =
  "Offer valid for new accounts only. Rates and terms are subject to change without notice; other fees may apply. This material is for illustration only and is not intended as investment, tax or legal advice. See the account agreement for the full terms and conditions.";

describe("disclaimers and fine print", () => {
  it("drops blocks classed as a disclaimer, fine print or legal text, prose though they are", () => {
    for (const cls of ["disclaimer", "site-disclaimer", "fine-print", "legal", "has-legal-font-size"]) {
      const html = `<html><body><main><h1>Extra thick yoga mat</h1>${para("mat", 4)}${para("cushion", 3)}<div class="${cls}"><p>${legal}</p><p>${legal}</p></div></main></body></html>`;
      const t = text(html);
      expect(t).toContain("how the cushion works");
      expect(t, cls).not.toContain("Offer valid for new accounts");
    }
  });

  it("keeps blocks whose class only contains the word inside another ('paralegal-services')", () => {
    const html = `<html><body><main><h1>Our firm</h1>${para("firm", 4)}<div class="paralegal-services">${para("paralegal", 3)}</div></main></body></html>`;
    expect(text(html, "https://example.com/services")).toContain("how the paralegal works");
  });
});
