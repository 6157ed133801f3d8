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

  it("keeps the headings posters put in their posts, and the title's words inside a post", () => {
    const html = thread(
      post("alice", `<h2>Which tent for winter?</h2>${para("tent", 2)}`) +
        post("bob", `<h3>My setup</h3>${para("pole", 2)}`) +
        post("carol", para("stake", 2)),
    );
    const { text } = extractMainText(html, url);
    expect(text).toContain("My setup");
    expect(text).toMatch(/^Which tent for winter\?$/m);
  });
});
