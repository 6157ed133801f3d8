import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const page = (body: string) =>
  extractMainText(
    `<!doctype html><html><head><meta property="og:type" content="article"></head><body><main><article><h1>Exercise can boost your mood</h1>${body}</article></main></body></html>`,
    "https://example.com/health/exercise-boosts-mood",
  ).text;
const story = `${para("exercise", 4)}${para("mood", 4)}${para("study", 4)}`;

describe("a bio under its label after the story (no author metadata)", () => {
  it("drops a reviewer's card titled 'About the Reviewer'", () => {
    const t = page(
      `${story}<div class="box"><h2>About the Reviewer</h2><div class="card"><img src="/golen.jpg" alt=""><p>Toni Golen, MD, Editor in Chief, Women's Health Watch</p><p>Dr. Golen is a physician specializing in obstetrics and gynecology, practicing in Boston.</p></div></div>`,
    );
    expect(t).toContain("how the study works");
    expect(t).not.toContain("Dr. Golen is a physician");
  });

  it("drops a label set as a paragraph of the story and the bio paragraph after it", () => {
    const t = page(
      `${story}<p>About the Author:</p><p>Juliette Carreiro is a skilled content creator with over five years of experience in SEO and content strategy.</p>`,
    );
    expect(t).toContain("how the study works");
    expect(t).not.toContain("skilled content creator");
  });

  it("keeps a short story whose closing credit line sits among its paragraphs", () => {
    const t = page(
      `<div class="lead"><p>The council approved the new cycle lane on Tuesday, after two years of consultation with residents.</p></div><div class="body"><p>Work starts in May and should end before the summer holidays, the council said.</p><p>Written by Jane Doe</p></div>`,
    );
    expect(t).toContain("The council approved the new cycle lane");
    expect(t).toContain("Work starts in May");
  });

  it("keeps a paragraph of the story that opens with the same words", () => {
    const t = page(
      `${story}<p>Written by hand over forty years, the diaries record every run the author took along the river.</p>`,
    );
    expect(t).toContain("Written by hand over forty years");
  });
});
