import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string, url = "https://forum.example.com/viewtopic.php?t=42") => extractMainText(html, url).text;

const page = (posts: string) =>
  `<html><head><title>Which tent for winter? - Camping Forum</title></head><body><main><h1>Which tent for winter?</h1><div class="posts">${posts}</div></main></body></html>`;

describe("a post's number and subject line in its header", () => {
  it("drops the post's number beside its date and a lone number link", () => {
    const post = (n: number, who: string, topic: string) =>
      `<article class="message"><header><span><a href="#post-${n}">#${n}</a> · <a href="#post-${n}">${who} posted on Jan ${n}, 2024</a></span><ul><li><a href="/threads/42/post-${n}">#${n}</a></li></ul></header><div class="author">${who}</div><div class="content">${para(topic, 2)}</div></article>`;
    const t = text(page(post(1, "alice", "tent") + post(2, "bob", "pole") + post(3, "carol", "stake")));
    expect(t).toContain("how the pole works");
    expect(t).toContain("bob posted on Jan 2, 2024");
    expect(t).not.toMatch(/#\d/);
  });

  it("drops each reply's subject when it is the thread's title after 'Re:'", () => {
    const post = (n: number, who: string, topic: string) =>
      `<div class="blockpost"><h2><span class="conr">#${n}</span> <a href="?pid=${n}">2024-08-0${n} 10:59</a></h2><div class="postleft"><strong>${who}</strong></div><div class="postright"><h3>${n > 1 ? "Re: " : ""}Which tent for winter?</h3><div class="postmsg">${para(topic, 2)}</div></div></div>`;
    const t = text(page(post(1, "alice", "tent") + post(2, "bob", "pole") + post(3, "carol", "stake")));
    expect(t).toContain("how the stake works");
    expect(t).toContain("2024-08-02 10:59");
    expect(t).not.toContain("Re: Which tent");
    expect(t).not.toMatch(/#\d/);
  });

  it("keeps a post's own words: a line that starts 'Re:' about something else, a number in a sentence", () => {
    const post = (who: string, body: string) =>
      `<div class="post"><div class="author">${who}</div><div class="content">${body}</div></div>`;
    const t = text(
      page(
        post("alice", para("tent", 2)) +
          post("bob", `<p><b>Re: the snow load question</b></p>${para("pole", 2)}`) +
          post(
            "carol",
            `<p>My vote: <strong>#1</strong> is the tunnel tent, and the dome comes second for me.</p>${para("stake", 2)}`,
          ),
      ),
    );
    expect(t).toContain("Re: the snow load question");
    expect(t).toContain("#1");
  });
});

describe("a post's reply and thanks counters", () => {
  it("drops '2 replies', '[ 3 ] Thanks', 'Show more replies' and 'Post a reply' between the posts", () => {
    const post = (n: number, who: string, topic: string) =>
      `<div class="post"><div class="author">${who}</div><div class="content">${para(topic, 2)}</div><div class="counters-${n}">[ ${n} ] Thanks</div><div class="replies-${n}">${n} replies</div></div>`;
    const t = text(
      page(
        post(1, "alice", "tent") +
          post(2, "bob", "pole") +
          post(3, "carol", "stake") +
          `<div class="more"><a href="?page=2">Show more replies</a></div><div class="reply-link"><a href="/post">Post a reply</a></div>`,
      ),
    );
    expect(t).toContain("how the stake works");
    for (const gone of ["Thanks", "2 replies", "Show more replies", "Post a reply"]) expect(t, gone).not.toContain(gone);
  });

  it("keeps a short post that thanks or counts replies in its own words", () => {
    const post = (who: string, body: string) =>
      `<div class="post"><div class="author">${who}</div><div class="content">${body}</div></div>`;
    const t = text(
      page(
        post("alice", para("tent", 2)) +
          post("bob", "<p>Thanks, that helped!</p>") +
          post("carol", "<p>2 replies and no answer yet?</p>"),
      ),
    );
    expect(t).toContain("Thanks, that helped!");
    expect(t).toContain("2 replies and no answer yet?");
  });
});

describe("a thread's action buttons left as lines of words", () => {
  it("drops 'Reply', 'Report inappropriate content' and 'Post Reply Bookmark Topic Watch Topic' lines", () => {
    const post = (n: number, who: string, topic: string) =>
      `<div class="post"><div class="author">${who}</div><div class="content">${para(topic, 2)}</div><div class="tools-${n}"><span>Reply</span></div></div>`;
    const t = text(
      page(
        `<div class="bar"><span>Post Reply</span> <span>Bookmark Topic</span> <span>Watch Topic</span></div>` +
          post(1, "alice", "tent") +
          `<div class="flag"><a href="/report">Report inappropriate content</a></div>` +
          post(2, "bob", "pole") +
          post(3, "carol", "stake") +
          `<div class="bottom"><span>New Topic</span></div>`,
      ),
    );
    expect(t).toContain("how the stake works");
    for (const gone of ["Reply", "Report", "Bookmark", "New Topic"]) expect(t, gone).not.toContain(gone);
  });

  it("drops a code box's label ('Code: Select all') and keeps its code", () => {
    const post = (who: string, topic: string, code: string) =>
      `<div class="post"><div class="author">${who}</div><div class="content">${para(topic, 2)}<div class="codebox"><p>Code: <a href="#" onclick="selectCode(this); return false;">Select all</a></p><pre><code>${code}</code></pre></div></div></div>`;
    const t = text(
      page(
        post("alice", "tent", "dtparam=act_led_trigger=none") +
          post(
            "bob",
            "pole",
            "# I added this line to /boot/firmware/config.txt and rebooted twice, but the green LED still blinks",
          ) +
          post("carol", "stake", "dtparam=pwr_led_trigger=default-on\ndtparam=pwr_led_activelow=off"),
      ),
    );
    expect(t).toContain("dtparam=act_led_trigger=none");
    expect(t).toContain("rebooted twice");
    expect(t).not.toContain("Select all");
  });

  it("keeps a short post that uses those words in a sentence", () => {
    const post = (who: string, body: string) =>
      `<div class="post"><div class="author">${who}</div><div class="content">${body}</div></div>`;
    const t = text(
      page(
        post("alice", para("tent", 2)) +
          post("bob", "<p>Quote me on that.</p>") +
          post("carol", "<p>Reply to all, then share it.</p>") +
          post("dave", "<p>Code: select all of it.</p>"),
      ),
    );
    expect(t).toContain("Quote me on that.");
    expect(t).toContain("Reply to all, then share it.");
    expect(t).toContain("Code: select all of it.");
  });
});
