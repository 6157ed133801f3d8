import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string, url = "https://example.com/services/estate-planning") => extractMainText(html, url).text;

describe("the terms under a sign-up or contact form ('By clicking Subscribe, you agree to ...')", () => {
  it("drops the lines that bind whoever sends the form", () => {
    const html = `<html><body><main><h1>Estate planning</h1>${para("will", 3)}${para("trust", 2)}
      <section><h2>Contact us</h2><form action="/send"><label>Name <input name="n"></label>
        <label><input type="checkbox" name="ok"> By checking this box, you confirm that you have read and understand this notice. Sending an email to our office does not create a client relationship, and nothing you send is confidential until we agree to represent you.</label>
        <p>By clicking Send, I agree to the Terms of Use and consent to receive calls and texts about my request.</p>
        <button>Send</button></form></section></main></body></html>`;
    const t = text(html);
    expect(t).toContain("how the will works");
    expect(t).toContain("how the trust works");
    expect(t).not.toContain("By checking this box");
    expect(t).not.toContain("does not create a client relationship");
    expect(t).not.toContain("By clicking Send");
  });

  it("keeps prose that opens the same way for another purpose", () => {
    const html = `<html><body><main><h1>Estate planning</h1>${para("will", 3)}
      <p>By providing your family with a clear plan, you spare them months of court hearings and the costs that come with them.</p>
      <p>By clicking the button several times in a row, you will see each draft of the document open one after another.</p>
      ${para("trust", 2)}</main></body></html>`;
    const t = text(html);
    expect(t).toContain("By providing your family with a clear plan");
    expect(t).toContain("By clicking the button several times in a row");
  });
});
