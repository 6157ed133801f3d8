import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";

const text = (html: string, url = "https://forum.example.com/threads/winter-tents.42/") => extractMainText(html, url).text;

const post = (who: string, body: string) =>
  `<article class="message"><div class="message-user"><a href="/u/${who}">${who}</a></div><div class="message-body"><p>${body}</p></div></article>`;
const posts =
  post(
    "alice",
    "I am planning a first trip into the mountains in January and wonder which tent holds up to wind and snow without weighing too much.",
  ) +
  post("bob", "A four-season dome with snow stakes served me well for years in the Alps, even in strong winds at night.") +
  post("carol", "Check the pole material too: aluminium bends where fibreglass snaps in the cold, so take a repair sleeve.");
const titles = ["Best sleeping bag for minus ten", "Stove fuel in the cold", "Crampons for beginners", "Avalanche course advice"];
const others = (label: string) =>
  `<div class="wrap"><div class="convo_title">${label}</div><div><ul>${titles
    .map(
      (t, i) => `<li><span class="topic"><a href="/threads/${i}">${t}</a></span> <span class="date">${i + 2} replies</span></li>`,
    )
    .join("")}</ul></div></div>`;
const long = (topic: string) =>
  Array.from(
    { length: 6 },
    (_, i) => `The ${topic} point ${i + 1} explains, in plain words, how the ${topic} works in the cold.`,
  ).join(" ");
const page = (after: string) =>
  `<html><body><div class="thread"><h1>Which tent for winter?</h1>${posts}${after}</div></body></html>`;

describe("lists of other threads", () => {
  it("drops a labelled list of other threads ('Recent conversations', 'More … topics', 'Related discussions')", () => {
    for (const label of [
      "Recent Conversations",
      "More Camping Topics",
      "Related discussions",
      "Similar threads:",
      "Explore related questions",
    ]) {
      const t = text(page(others(label)));
      expect(t).toContain("four-season dome");
      expect(t).not.toContain(label);
      expect(t).not.toContain("Stove fuel in the cold");
    }
  });

  it("keeps a block that opens with such words but is prose (a post about related threads)", () => {
    const prose =
      '<div class="note"><p>Related discussions</p><p>Several older threads already went through this question in detail, and most of them came to the same answer: a dome with snow stakes, a second pole set and a repair sleeve are worth the weight.</p></div>';
    const t = text(page(prose));
    expect(t).toContain("Several older threads already went through");
  });

  it("keeps a labelled list whose label names something else ('Packing list')", () => {
    const t = text(page(others("Packing list")));
    expect(t).toContain("Stove fuel in the cold");
  });

  it("drops such a list whose entries carry an excerpt of each thread ('Trending Topics', 'Suggested Topics')", () => {
    const excerpt = (t: string, i: number) =>
      `<article class="snapshot"><a href="/threads/${i}">${t}</a><p>Started by member${i} one week ago: I have been wondering about this for a while now and would like to hear what the people here think of it before I buy anything.</p></article>`;
    for (const label of ["Trending Topics", "Suggested Topics"]) {
      const more = post("dave", long("snow anchor")) + post("erin", long("vestibule"));
      const t = text(page(`${more}<section class="side"><h3>${label}</h3>${titles.map(excerpt).join("")}</section>`));
      expect(t).toContain("four-season dome");
      expect(t).not.toContain(label);
      expect(t).not.toContain("Stove fuel in the cold");
    }
  });

  it("keeps a post that opens with such words and links to a thread or two in its prose", () => {
    const prose = `<div class="note"><p>Related discussions</p><p>Two older threads went through this in detail: <a href="/threads/7">the dome thread</a> and <a href="/threads/8">the stakes thread</a>. Most of them came to the same answer, that a dome with snow stakes and a repair sleeve is worth the weight on a winter trip.</p></div>`;
    const t = text(page(prose));
    expect(t).toContain("Two older threads went through this");
  });
});
