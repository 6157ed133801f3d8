import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string, url = "https://example.com/services/packaging-design") => extractMainText(html, url).text;

const contactForm = `<form action="/lead"><h3>Get a free design audit</h3><p>Fill in the details to know more</p><label>Your name</label><input name="n"><label>Country</label><select><option>Loading countries...</option></select><button>Send</button></form>
  <div class="w-form-done"><div>Thank you! Your submission has been received!</div></div><div class="w-form-fail"><div>Oops! Something went wrong while submitting the form.</div></div>`;

describe("forms inside the content", () => {
  it("drops a form's labels and prompts and its status messages on a service page", () => {
    const html = `<html><body><main><h1>Packaging design</h1>${para("packaging", 3)}<section>${contactForm}</section>${para("shelf", 3)}</main></body></html>`;
    const t = text(html);
    expect(t).toContain("how the packaging works");
    expect(t).toContain("how the shelf works");
    for (const gone of [
      "Fill in the details",
      "Your name",
      "Loading countries",
      "submission has been received",
      "Something went wrong",
    ])
      expect(t, gone).not.toContain(gone);
  });

  it("keeps a page wrapped in one form (ASP.NET), and a thread whose posts sit in a form", () => {
    const aspx = `<html><body><form id="aspnetForm"><main><h1>Packaging design</h1>${para("packaging", 3)}</main></form></body></html>`;
    expect(text(aspx)).toContain("how the packaging works");
    const post = (who: string, words: string) =>
      `<div class="post"><div class="author">${who}</div><div class="body">${words}</div></div>`;
    const thread = `<html><body><main><h1>Which tent?</h1><form action="/inline-mod">${post("alice", "Any tips for a winter tent?")}${post("bob", "Take a dome, it holds in wind.")}${post("carol", "Bring snow stakes too.")}</form></main></body></html>`;
    expect(text(thread, "https://forum.example.com/threads/which-tent.42/")).toContain("Bring snow stakes too.");
  });
});
