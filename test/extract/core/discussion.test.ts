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
