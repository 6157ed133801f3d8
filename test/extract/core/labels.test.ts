import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string, url = "https://example.com/services/plumbing") => extractMainText(html, url).text;

describe("call-to-action labels left inside the content", () => {
  it("drops blocks that are nothing but a call to action ('Learn more', 'Read more', 'View all', '3 likes')", () => {
    const labels = ["Learn more", "Read more", "View all", "Shop now", "Read full article", "Continue reading", "3 likes"];
    const blocks = labels.map(
      (l, i) => `<section><h2>Offer ${i}</h2>${para(`offer ${i}`, 2)}<div class="cta"><a href="/x${i}">${l}</a></div></section>`,
    );
    const t = text(`<html><body><main><h1>Plumbing</h1>${blocks.join("")}</main></body></html>`);
    for (let i = 0; i < labels.length; i++) expect(t).toContain(`how the offer ${i} works`);
    for (const l of labels) expect(t).not.toContain(l);
  });

  it("keeps a call to action inside a sentence, and a longer block that only starts like one", () => {
    const html = `<html><body><main><h1>Plumbing</h1>${para("pipe", 3)}
      <p>Learn more about our pricing on the rates page, or call us.</p><div>Read more stories from our customers below this line</div></main></body></html>`;
    const t = text(html);
    expect(t).toContain("Learn more about our pricing");
    expect(t).toContain("Read more stories from our customers");
  });
});
