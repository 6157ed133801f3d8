import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";

const text = (html: string) => extractMainText(html, "https://forum.example.com/threads/winter-tents.42/").text;

/** A comment tree (Lemmy, old Reddit): each reply sits in its parent's list of replies, a few wrappers down. */
const comment = (who: string, words: string, replies = "") =>
  `<li class="comment"><article class="comment-node"><div class="d-flex"><a class="person" href="/u/${who}">${who}</a><span class="lang">English</span><span class="votes">11 ·</span><span class="moment">1 year ago</span></div>` +
  `<div class="comment-content"><p>${words}</p></div>` +
  `<div class="comment-bottom-btns"><button>Reply</button><button>Share</button><span>Report</span></div></article>` +
  (replies ? `<ul class="comments">${replies}</ul>` : "") +
  "</li>";
const chain = (who: string, words: string[]) => words.reduceRight((inner, w, i) => comment(`${who}${i}`, w, inner), "");
const talk = [
  "A four-season dome with snow stakes served me well for years in the Alps, even in strong wind.",
  "Did you ever try a tunnel tent instead? They shed snow well if you pitch them into the wind.",
  "Tunnels are lighter, but they need more stakes and those are hard to place in frozen ground.",
  "Deadman anchors solve that: bury a stuff sack full of snow and tie the guy line around it.",
];
const page = (tree: string) =>
  `<html><head><title>Which tent for winter?</title></head><body><div class="content"><h1>Which tent for winter?</h1><div class="post-body"><p>${talk[0]} ${talk[1]}</p></div><section class="comments-area"><ul class="comments">${tree}</ul></section></div></body></html>`;

describe("comment trees: the chrome of nested replies", () => {
  it("drops the chrome of replies nested deeper than the top comments' own parts, keeps their authors", () => {
    const t = text(
      page(
        chain("alice", talk) +
          chain(
            "bob",
            talk.map((w) => `${w} Agreed.`),
          ) +
          chain(
            "carol",
            talk.map((w) => `${w} Same!`),
          ),
      ),
    );
    expect(t).toContain("Deadman anchors solve that");
    expect(t).toMatch(/^alice3$/m);
    expect(t).toMatch(/^carol3$/m);
    expect(t).not.toMatch(/English|Report/);
  });

  it("keeps the words of deep replies, short ones and ones that use the chrome's words", () => {
    const last = ["Nice.", "English is not my first language, sorry: report me if this reads badly."];
    const t = text(page(chain("alice", talk) + chain("bob", talk) + chain("carol", [...talk.slice(0, 3), ...last])));
    expect(t).toContain("Nice.");
    expect(t).toContain("English is not my first language");
  });
});
