import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (body: string) =>
  extractMainText(
    `<!doctype html><html><head><title>Marketing services</title></head><body><main><div class="elementor"><h1>Marketing and advertising</h1>${body}</div></main></body></html>`,
    "https://example.com/services/marketing-and-advertising/",
  ).text;
/** An Elementor block of one kind, as the builder prints every block. */
const widget = (kind: string, inner: string) =>
  `<div class="elementor-element elementor-widget__width-initial elementor-widget elementor-widget-${kind}"><div class="elementor-widget-container">${inner}</div></div>`;
const box = (kind: string, title: string, line: string) =>
  widget(
    kind,
    `<div class="elementor-icon-box-wrapper"><h3 class="elementor-icon-box-title">${title}</h3><p class="elementor-icon-box-description">${line}</p></div>`,
  );
const boxes = (kind: string) =>
  `<section class="elementor-section"><div class="elementor-widget-wrap">${[
    ["Greater brand visibility", "Campaigns raise your brand's exposure among the customers you want to reach."],
    ["Greater customer interaction", "Engaging ads invite the audience to take part, comment and share."],
    ["Brand building", "We convey the values and mission of your brand to the people who matter."],
  ]
    .map(([t, l]) => box(kind, t ?? "", l ?? ""))
    .join("")}</div></section>`;

describe("a page builder's feature cards (Elementor icon and image boxes)", () => {
  it("keeps icon boxes and image boxes, short as they are", () => {
    const t = text(`${para("campaign", 4)}${boxes("icon-box")}${para("targeting", 3)}${boxes("image-box")}`);
    expect(t).toContain("how the campaign works");
    expect(t).toContain("Greater brand visibility");
    expect(t).toContain("raise your brand's exposure");
  });

  it("still prunes other short builder blocks named as widgets (a call-to-action box)", () => {
    const t = text(`${para("campaign", 4)}${boxes("call-to-action")}${para("targeting", 3)}`);
    expect(t).toContain("how the targeting works");
    expect(t).not.toContain("Greater brand visibility");
  });
});
