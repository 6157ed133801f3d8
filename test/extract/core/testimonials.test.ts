import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";

const text = (html: string) => extractMainText(html, "https://outreach.example.com/").text;

const intro =
  "<h1>Cold email that reaches the inbox</h1><p>Find warm leads, send campaigns from unlimited mailboxes and reach the primary inbox, with warm-up and deliverability checks built in for every account you connect.</p><p>Replies land in one shared inbox, sorted by intent, so the team answers the people who are ready to talk first and books meetings without leaving the page.</p>";
const more =
  "<p>Campaigns branch on what each lead does: an opened email, a click or a reply moves the lead to the next step, and a bounce pauses the mailbox that sent it until its records are fixed.</p><p>Every plan includes the lead database, unlimited mailboxes and the warm-up network, and a team can start on the free trial without a card, moving to a paid plan when the first campaign runs.</p>";
const quotes = [
  [
    "Dana Whitfield, Managing Director",
    "I have specialised in cold email since 2018 and used almost every tool on the market; this is the one our team kept, because the inbox rates held up at scale.",
  ],
  [
    "Sam Ortega, Head of Growth",
    "We tried every product people in outbound talk about, and none made sending from forty mailboxes this simple; our reply rate doubled in the first month.",
  ],
];
const testimonials = `<section class="testimonial-section-wrapper"><h2>40,000+ customers getting more replies</h2>${quotes
  .map(([who, said]) => `<div class="testimonial-card"><p>"${said}"</p><div class="testimonial-author">${who}</div></div>`)
  .join("")}</section>`;

describe("testimonials", () => {
  it("keeps a service page's section of customer quotes (part of what the page says)", () => {
    const t = text(
      `<html><body><div class="page-wrapper"><section class="hero">${intro}</section>${testimonials}</div></body></html>`,
    );
    expect(t).toContain("Replies land in one shared inbox");
    expect(t).toContain("our reply rate doubled in the first month");
  });

  it("still drops quotes in the page's side column (an aside beside an article)", () => {
    const t = text(
      `<html><body><div class="page-wrapper"><section class="hero">${intro}${more}</section><aside>${testimonials}</aside></div></body></html>`,
    );
    expect(t).toContain("Replies land in one shared inbox");
    expect(t).not.toContain("our reply rate doubled in the first month");
  });
});
