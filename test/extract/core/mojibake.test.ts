import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string, url = "https://example.com/products/hr") => extractMainText(html, url).text;
/** `s` as UTF-8 bytes read one byte per character (Latin-1): what a wrong charset guess stores. */
const latin1 = (s: string) => String.fromCharCode(...new TextEncoder().encode(s));

describe("UTF-8 text stored as Latin-1 (mojibake)", () => {
  it("decodes the text back: dashes, quotes and accented letters read again", () => {
    const html = `<html><head><meta charset="utf-8"></head><body><main><h1>HR software</h1>${para("payroll", 3)}
      <p>${latin1("Our People app—cloud-based HR software—keeps the team’s records in one place, from Zürich to São Paulo.")}</p></main></body></html>`;
    const t = text(html);
    expect(t).toContain("Our People app—cloud-based HR software—keeps the team’s records");
    expect(t).toContain("from Zürich to São Paulo");
  });

  it("leaves a page without the control characters as it is (a real 'Ã' or 'Â' in the text)", () => {
    const html = `<html><body><main><h1>HR software</h1>${para("payroll", 3)}
      <p>The SÃO brand and the ÂRT studio are two of our clients; the oven runs at 180Â° on the test sheet, as printed.</p></main></body></html>`;
    const t = text(html);
    expect(t).toContain("The SÃO brand and the ÂRT studio");
    expect(t).toContain("180Â°");
  });
});
