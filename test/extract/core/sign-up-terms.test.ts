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

  it("drops the form's notes on how what is sent is handled and which fields are required", () => {
    const html = `<html><body><main><h1>Estate planning</h1>${para("will", 3)}${para("trust", 2)}
      <form action="/send"><p>Required fields are marked with an asterisk (*)</p><label>Name* <input name="n"></label>
        <p>Your personal information will be handled in accordance with our Privacy Statement. You can change your preferences at any time.</p></form></main></body></html>`;
    const t = text(html);
    expect(t).toContain("how the trust works");
    expect(t).not.toContain("Required fields are marked");
    expect(t).not.toContain("Your personal information will be handled");
  });

  it("keeps prose about what happens to the client's information", () => {
    const html = `<html><body><main><h1>Estate planning</h1>${para("will", 3)}
      <p>Your information will be kept in a sealed file at our office, and only the executor you name can open it after your death.</p>
      <p>The details of every trust will be handled by one partner from the first meeting to the final signature.</p></main></body></html>`;
    const t = text(html);
    expect(t).toContain("Your information will be kept in a sealed file");
    expect(t).toContain("The details of every trust will be handled by one partner");
  });
});
