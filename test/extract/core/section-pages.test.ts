import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";

const text = (html: string) => extractMainText(html, "https://assist.example.com/ai-assistant/").text;
/** WordPress SEO plugins type every page an article, a service page included. */
const head = '<head><meta property="og:type" content="article"></head>';
const nav = '<header class="site-header"><a href="/">Home</a> <a href="/pricing">Pricing</a> <a href="/blog">Blog</a></header>';

const features = [
  [
    "Access company knowledge",
    "Chat with your data as you would with a colleague, and get answers drawn from the documents, wikis and tickets your teams already keep.",
  ],
  [
    "Answers with sources",
    "Every answer links to the passages it was drawn from, so a reader can check the claim and open the document without searching for it again.",
  ],
  [
    "Works where you work",
    "The assistant sits in the chat tool and the browser your teams already use, and it respects the permissions set on every file it reads.",
  ],
  [
    "Private by design",
    "Your data stays in your cloud account: nothing is sent to train outside models, and every question and answer is kept in an audit log.",
  ],
  [
    "Set up in a week",
    "Connectors for the common drives, wikis and ticket systems index a company's knowledge in days, and an admin can add sources at any time.",
  ],
  [
    "Measured results",
    "Teams that use the assistant report fewer repeated questions in chat and faster onboarding, and the dashboard shows which answers help.",
  ],
];
const featureSections = features
  .map(([h, p]) => `<section class="feature"><div class="feature__inner"><h3>${h}</h3><p>${p}</p></div></section>`)
  .join("");

/** The section with the most prose: a heading, two paragraphs and a strip of figures beside them. */
const overload = `<section class="stats"><div class="container"><div class="section-heading"><h2>The hidden cost of information overload</h2><div class="section-heading__text"><p>In today's fast-paced business environment, valuable time and opportunities slip through the cracks while teams search folders, documents and databases.</p><p>Your teams are drowning in data, spending hours looking for what a colleague already wrote down, time that could be spent on the work the business needs.</p></div></div><div class="figures"><div class="figure"><div class="figure__value">38%</div><div class="figure__label">of employees report too many messages</div></div><div class="figure"><div class="figure__value">80%</div><div class="figure__label">feel overwhelmed by information</div></div><div class="figure"><div class="figure__value">2.5 hours</div><div class="figure__label">a day spent searching for answers</div></div></div></div></section>`;

describe("pages of many sections typed as articles", () => {
  it("keeps every section of a service page whose largest section holds a small share of its prose", () => {
    const t = text(
      `<html>${head}<body>${nav}<div id="page"><main class="general">${overload}${featureSections}</main></div></body></html>`,
    );
    expect(t).toContain("drowning in data");
    expect(t).toContain("Chat with your data as you would with a colleague");
    expect(t).toContain("Connectors for the common drives");
  });

  it("keeps an article bounded when its text holds most of the prose (a timetable beside it stays out)", () => {
    const story = Array.from(
      { length: 6 },
      (_, i) =>
        `<p>Paragraph ${i + 1} of the story: the council voted on Tuesday to extend the tram line to the harbour, after a decade of plans, surveys and public meetings about the route.</p>`,
    ).join("");
    const table = Array.from(
      { length: 14 },
      (_, i) => `<div class="row"><div>Stop ${i + 1}</div><div>${i * 3 + 2} min</div></div>`,
    ).join("");
    const page = `<html>${head}<body>${nav}<div id="page"><div class="story"><h1>Tram line to reach the harbour</h1><div class="story__body">${story}</div></div><div class="timetable"><div>Timetable</div>${table}</div></div></body></html>`;
    const t = text(page);
    expect(t).toContain("Paragraph 6 of the story");
    expect(t).not.toContain("Stop 14");
  });
});
