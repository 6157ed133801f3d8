import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";

const text = (html: string, url = "https://forum.example.com/threads/winter-tents.42/") => extractMainText(html, url).text;

const opening =
  "I am planning a first trip into the mountains in January and wonder which tent holds up to wind and snow without weighing too much.";
const post = (who: string, body: string) =>
  `<article class="message"><div class="message-user"><a href="/u/${who}">${who}</a></div><div class="message-body">${body}</div></article>`;
const quote = (who: string, words: string) =>
  `<blockquote class="bbCodeBlock bbCodeBlock--quote"><div class="bbCodeBlock-title">${who} said:</div><div class="bbCodeBlock-content">${words}</div></blockquote>`;
const page = (posts: string) => `<html><body><div class="thread"><h1>Which tent for winter?</h1>${posts}</div></body></html>`;

describe("discussion threads: quoted posts", () => {
  it("drops a reply's quote of a post shown on the page, keeps the reply", () => {
    const t = text(
      page(
        post("alice", `<p>${opening}</p>`) +
          post(
            "bob",
            `${quote("alice", opening)}<p>A four-season dome with snow stakes served me well for years in the Alps.</p>`,
          ) +
          post("carol", "<p>Check the pole material too: aluminium bends where fibreglass snaps in the cold.</p>"),
      ),
    );
    expect(t.split(opening).length - 1).toBe(1);
    expect(t).toContain("four-season dome");
    expect(t).toContain("aluminium bends");
  });

  it("a blockquote citing its author with a cite element or a 'wrote:' line counts as a quote too", () => {
    const cited = `<blockquote><div><cite>alice wrote:</cite>${opening}</div></blockquote>`;
    const wrote = `<blockquote><p>alice wrote:</p><p>${opening}</p></blockquote>`;
    for (const q of [cited, wrote]) {
      const t = text(
        page(
          post("alice", `<p>${opening}</p>`) +
            post("bob", `${q}<p>A four-season dome with snow stakes served me well for years in the Alps.</p>`) +
            post("carol", "<p>Check the pole material too: aluminium bends where fibreglass snaps in the cold.</p>"),
        ),
      );
      expect(t.split(opening).length - 1).toBe(1);
    }
  });

  it("keeps a quote of something the page does not show (an earlier page, an announcement)", () => {
    const announcement =
      "We have decided to end support for the open source edition at the end of the year and will archive the repository.";
    const t = text(
      page(
        post("alice", `${quote("vendor", announcement)}<p>So what do we migrate to? ${opening}</p>`) +
          post("bob", "<p>A fork already exists and it is maintained by people who used to work on the original.</p>") +
          post("carol", "<p>Check the pole material too: aluminium bends where fibreglass snaps in the cold.</p>"),
      ),
    );
    expect(t).toContain(announcement);
  });

  it("on an article (no thread) a quote of a sentence repeated from the text stays", () => {
    const body = `<p>${opening}</p><p>More of the story follows here, with details that only this article gives its readers.</p>`;
    const html = `<html><head><meta property="og:type" content="article"></head><body><article><h1>Tents</h1>${body}${quote("alice", opening)}<p>The end of the story, told in a last paragraph that closes the article for good.</p></article></body></html>`;
    const t = text(html, "https://news.example.com/2024/01/tents");
    expect(t.split(opening).length - 1).toBe(2);
  });
});

const card = (who: string, n: number) =>
  `<div class="user-card"><a href="/u/${who}">${who}</a><span class="user-title">Well-known member</span><span>${n * 37} posts</span></div>`;
const cardPost = (who: string, n: number, body: string) =>
  `<article class="message">${card(who, n)}<div class="message-main"><div class="message-date">Mar ${n}, 2025 #${n}</div><div class="message-body">${body}</div><div class="message-actions">Reply Report</div></div></article>`;

describe("discussion threads: post chrome", () => {
  const bodies = [
    `<p>${opening}</p>`,
    "<p>A four-season dome with snow stakes served me well for years in the Alps, even in strong wind.</p>",
    "<p>Check the pole material too: aluminium bends where fibreglass snaps in the cold, so pick aluminium.</p>",
    "<p>Thanks, both!</p>",
  ];

  it("drops the author card, date line and action bar repeated in every post; keeps what was said", () => {
    const t = text(page(bodies.map((b, i) => cardPost(["alice", "bob", "carol", "alice"][i] ?? "x", i + 1, b)).join("")));
    for (const said of [opening, "four-season dome", "aluminium bends", "Thanks, both!"]) expect(t).toContain(said);
    for (const chrome of ["Well-known member", "37 posts", "Mar 2, 2025", "Reply Report"]) expect(t).not.toContain(chrome);
  });

  it("keeps everything in a thread of short posts with no prose (a part may be the post itself)", () => {
    const short = ["Which tent?", "A dome.", "Aluminium poles.", "Thanks!"];
    const t = text(page(short.map((b, i) => cardPost(`user${i}`, i + 1, `<p>${b}</p>`)).join("")));
    for (const said of short) expect(t).toContain(said);
    expect(t).toContain("Well-known member");
  });

  it("on a page that is no thread, repeated short blocks of one class stay", () => {
    const section = (n: number) =>
      `<section class="step"><div class="step-label">Step ${n} of 4</div><p>${opening} Part ${n} of the guide says more.</p></section>`;
    const html = `<html><body><main><h1>Pitching a tent</h1>${[1, 2, 3, 4].map(section).join("")}</main></body></html>`;
    const t = text(html, "https://example.com/guides/pitching-a-tent");
    expect(t).toContain("Step 3 of 4");
  });
});

describe("Q&A pages (schema.org QAPage)", () => {
  const ld =
    '<script type="application/ld+json">{"@context":"https://schema.org","@type":"QAPage","mainEntity":{"@type":"Question","name":"Tent"}}</script>';
  const comments = (topic: string) =>
    `<ul class="comments-list">${[1, 2].map((i) => `<li class="comment"><span class="comment-copy">Did you try the ${topic} trick number ${i}, the one from the manual?</span> <a href="/u/${i}">user${i}</a></li>`).join("")}</ul>`;
  const answer = (words: string) =>
    `<div class="answer"><div class="post-text"><p>${words} ${opening}</p><p>${words}</p></div>${comments("stake")}</div>`;
  const qa = `<html><head>${ld}</head><body><div class="question"><h1>Which tent for winter?</h1><div class="post-text"><p>${opening}</p></div>${comments("guy line")}</div>
    ${answer("A four-season dome with snow stakes served me well for years in the Alps, even in strong wind and heavy snow.")}
    ${answer("Check the pole material too: aluminium bends where fibreglass snaps in the cold, so pick aluminium poles.")}</body></html>`;

  it("drops the comment threads under the question and the answers, keeps the answers", () => {
    const t = text(qa, "https://outdoors.example.com/questions/42/which-tent-for-winter");
    for (const said of [opening, "four-season dome", "aluminium bends"]) expect(t).toContain(said);
    expect(t).not.toContain("trick number");
  });

  it("keeps comments that hold most of the page (answers marked up as comments), and on a forum without the schema", () => {
    const replies = ["four-season dome", "aluminium poles", "snow stakes", "vestibule space"].map(
      (w) =>
        `<div class="comment"><p>My advice on the ${w}: it matters more than the brand, and it is worth paying for in winter.</p></div>`,
    );
    const html = `<html><head>${ld}</head><body><div class="question"><h1>Tent?</h1><p>Which tent for winter?</p></div><section class="comments">${replies.join("")}</section></body></html>`;
    expect(text(html, "https://forum.example.com/t/tent/42")).toContain("My advice on the vestibule space");
    const forum = qa.replace(ld, "");
    expect(text(forum, "https://outdoors.example.com/questions/42/which-tent-for-winter")).toContain("trick number");
  });
});
