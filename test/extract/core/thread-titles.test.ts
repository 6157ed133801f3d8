import { describe, expect, it } from "vitest";
import { extractHtml, extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const url = "https://forum.example.com/threads/which-tent-for-winter.42/";
const post = (who: string, body: string) =>
  `<article class="message"><div class="message-user"><a href="/members/${who}.1/">${who}</a></div><div class="message-body">${body}</div></article>`;
/** A thread whose title heading sits inside the block that holds its posts. */
const thread = (posts: string) =>
  `<html><head><title>Which tent for winter? | Camping Forum</title></head><body><nav><a href="/">Forums</a></nav><div class="p-body"><div class="p-title"><h1 class="p-title-value">Which tent for winter?</h1></div><div class="block-body">${posts}</div></div></body></html>`;

describe("a thread's title heading", () => {
  it("is the page's title, not a line of the thread's text; the rendered thread still shows it in front", () => {
    const html = thread(post("alice", para("tent", 2)) + post("bob", para("pole", 2)) + post("carol", para("stake", 2)));
    const { text, title } = extractMainText(html, url);
    expect(title).toBe("Which tent for winter?");
    expect(text).not.toContain("Which tent for winter?");
    expect(text).toContain("how the stake works");
    const r = extractHtml(html, { url, format: "markdown", links: false, imageLinks: false });
    expect(r.ok && r.page.text).toMatch(/^# Which tent for winter\?/);
  });

  it("keeps the headings posters put in their posts, the title's words among them", () => {
    const html = thread(
      post("alice", para("tent", 2)) +
        post("bob", `<h2>Which tent for winter?</h2><h3>My setup</h3>${para("pole", 2)}`) +
        post("carol", para("stake", 2)),
    );
    const { text } = extractMainText(html, url);
    expect(text).toContain("My setup");
    expect(text).toMatch(/^Which tent for winter\?$/m);
  });
});

/** phpBB's prosilver: the h1 names the board, the topic's title is an h2 above the posts. */
const board = (top: string, posts: string) =>
  `<html><head><title>Which tent for winter? - Camping Forum</title></head><body><div class="headerbar"><h1>Camping Forum</h1><p>Tents, stoves and trails</p></div><div id="page-body"><h2 class="topic-title"><a href="./viewtopic.php?t=42">${top}</a></h2><div class="action-bar"></div>${posts}</div></body></html>`;
const phpbb = (who: string, body: string) =>
  `<div class="post bg2"><div class="inner"><div class="postbody"><p class="author">by <a href="./memberlist.php?mode=viewprofile&amp;u=2">${who}</a></p><div class="content">${body}</div></div></div></div>`;

describe("the thread's title again as a heading above its posts", () => {
  it("drops a heading above the first post that repeats the page's title", () => {
    const html = board(
      "Which tent for winter?",
      phpbb("alice", para("tent", 2)) + phpbb("bob", para("pole", 2)) + phpbb("carol", para("stake", 2)),
    );
    const t = extractMainText(html, "https://forum.example.com/viewtopic.php?t=42").text;
    expect(t).toContain("how the stake works");
    expect(t).not.toContain("Which tent for winter?");
  });

  it("keeps a heading above the posts that says something else, and the title heading a later post", () => {
    const html = board(
      "Read this first",
      phpbb("alice", para("tent", 2)) +
        phpbb("bob", `<h3>Which tent for winter?</h3>${para("pole", 2)}`) +
        phpbb("carol", para("stake", 2)),
    );
    const t = extractMainText(html, "https://forum.example.com/viewtopic.php?t=42").text;
    expect(t).toContain("Read this first");
    expect(t).toMatch(/^Which tent for winter\?$/m);
  });
});
