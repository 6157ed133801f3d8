import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string, url = "https://example.com/help/billing") => extractMainText(html, url).text;

describe("feedback prompts under a page ('Was this helpful?', 'Rate this article')", () => {
  it("drops the prompt with the short widget around it", () => {
    const html = `<html><body><main><h1>Billing</h1>${para("invoice", 3)}${para("refund", 2)}
      <div class="page-feedback"><p>Was this page helpful?</p><div><a href="#yes">Yes</a> <a href="#no">No</a></div>
        <p>Thanks for letting us know.</p></div>
      <div class="rating-widget"><h3>How useful was this post?</h3><p>Click on a star to rate it!</p>
        <p>No votes so far! Be the first to rate this post.</p></div></main></body></html>`;
    const t = text(html);
    expect(t).toContain("how the invoice works");
    expect(t).toContain("how the refund works");
    expect(t).not.toContain("Was this page helpful");
    expect(t).not.toContain("Thanks for letting us know");
    expect(t).not.toContain("How useful was this post");
    expect(t).not.toContain("No votes so far");
  });

  it("keeps a sentence that asks about usefulness, and the prose beside a prompt", () => {
    const html = `<html><body><main><h1>Billing</h1>${para("invoice", 3)}
      <p>Was this approach useful for our customers? We asked forty of them and most said the monthly invoice was clearer.</p>
      <div><p>For more on refunds, see the billing settings page, where every refund and credit note is listed by date.</p>
        <p><strong>Was this helpful?</strong></p></div>${para("refund", 2)}</main></body></html>`;
    const t = text(html);
    expect(t).toContain("Was this approach useful for our customers?");
    expect(t).toContain("For more on refunds, see the billing settings page");
    expect(t).toContain("how the refund works");
  });
});
