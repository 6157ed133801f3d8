import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (body: string) =>
  extractMainText(
    `<!doctype html><html><head><title>Submitting patches</title></head><body><div class="document"><div class="body" role="main"><h1>Submitting patches</h1>${body}</div></div></body></html>`,
    "https://docs.example.org/process/submitting-patches.html",
  ).text;

/** A section as Sphinx prints it: the heading's words as id, an empty anchor first, a permalink. */
const sphinx = (id: string, title: string, topic: string) =>
  `<section id="${id}"><span id="old-anchor"></span><h2>${title}<a class="headerlink" href="#${id}">¶</a></h2>${para(topic, 3)}</section>`;

describe("section ids that are the slug of their heading (Sphinx, MkDocs, Docusaurus)", () => {
  it("keeps a section whose title names comments or replies", () => {
    const t = text(
      sphinx("describe-your-changes", "Describe your changes", "changelog") +
        sphinx("respond-to-review-comments", "Respond to review comments", "review") +
        sphinx(
          "use-trimmed-interleaved-replies-in-email-discussions",
          "Use trimmed interleaved replies in email discussions",
          "quoting",
        ) +
        sphinx("related-work-and-prior-art", "Related work and prior art", "history"),
    );
    expect(t).toContain("how the changelog works");
    expect(t).toContain("how the review works");
    expect(t).toContain("how the quoting works");
    expect(t).toContain("how the history works");
  });

  it("keeps a heading whose own id is its slug", () => {
    const t = text(`${para("changelog", 3)}<h2 id="sharing-the-build-cache">Sharing the build cache</h2>${para("cache", 3)}`);
    expect(t).toContain("Sharing the build cache");
  });

  it("still sets aside a comment section whose id is not its heading's slug", () => {
    const t = text(
      sphinx("describe-your-changes", "Describe your changes", "changelog") +
        sphinx("reader-comments-section", "What readers said", "reaction"),
    );
    expect(t).toContain("how the changelog works");
    expect(t).not.toContain("how the reaction works");
  });

  it("still sets aside a section named by one word, however its heading reads ('comments')", () => {
    const t = text(
      `${sphinx("describe-your-changes", "Describe your changes", "changelog")}<section id="comments"><h2>Comments</h2>${para("reaction", 3)}</section>`,
    );
    expect(t).not.toContain("how the reaction works");
  });
});
