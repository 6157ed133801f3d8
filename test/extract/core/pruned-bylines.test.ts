import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const url = "https://forum.example.com/topic/4211-winter-tents/";
const text = (body: string) =>
  extractMainText(`<html><head><title>Winter tents</title></head><body>${body}</body></html>`, url).text;

/** An Invision-style post: the author column is an <aside>, the date sits in a "meta" row whose <time> prints it long and short. */
const ipsPost = (who: string, n: number, topic: string) =>
  `<article class="ipsEntry"><aside class="ipsEntry__header"><a href="/profile/${n}-${who}/"><img src="/a/${n}.png" alt="${who}"></a><h3 class="ipsEntry__username"><a href="/profile/${n}-${who}/">${who}</a> <span class="ipsEntry__group">Members</span></h3><ul><li>${n * 12} posts</li></ul></aside><div class="ipsEntry__post"><div class="ipsEntry__meta"><time datetime="2024-06-1${n}"><span class="ipsTime__long">June 1${n}, 2024</span><span class="ipsTime__short">1 yr</span></time></div><div class="ipsRichText">${para(topic, 2)}</div></div></article>`;

/** A phpBB-style post: its header is a "p.author" ("by Bob » date"), its card has the join date. */
const bbPost = (who: string, n: number, topic: string) =>
  `<div class="post"><div class="postbody"><h3><a href="#p${n}">Re: Winter tents</a></h3><p class="author"><span>by <a href="./memberlist.php?mode=viewprofile&u=${n}">${who}</a> » </span>Sun Dec 1${n}, 2023 11:2${n} am</p><div class="content">${para(topic, 2)}</div></div></div>`;

describe("a post's byline inside furniture the first pass prunes", () => {
  it("keeps the name and date of an author column in an <aside> and of a 'meta' row; the group and counts go", () => {
    const t = text(
      `<div class="ipsEntries">${ipsPost("alice", 1, "tent") + ipsPost("bob", 2, "pole") + ipsPost("carol", 3, "stake")}</div>`,
    );
    expect(t).toMatch(/\nbob\nJune 12, 2024\nThe pole note/);
    for (const chrome of ["Members", "24 posts", "1 yr"]) expect(t).not.toContain(chrome);
  });

  it("keeps the name and date of a header named 'author'", () => {
    const t = text(
      `<div class="topic">${bbPost("alice", 1, "tent") + bbPost("bob", 2, "pole") + bbPost("carol", 3, "stake")}</div>`,
    );
    expect(t).toMatch(/\nbob\nSun Dec 12, 2023 11:22 am\nThe pole note/);
  });

  it("keeps nothing of pruned furniture outside the posts, nor of a member's signature", () => {
    const sidebar = `<aside class="sidebar"><h3>Latest posts</h3><a href="/profile/9-dave/">dave</a> <time>June 30, 2024</time></aside>`;
    const signed = (who: string, n: number, topic: string) =>
      `<div class="post"><div class="content">${para(topic, 2)}</div><div class="signature">Built by <a href="/profile/${n}-${who}/">${who}</a> since May 2, 2019</div></div>`;
    const t = text(
      `<div class="topic">${signed("alice", 1, "tent") + signed("bob", 2, "pole") + signed("carol", 3, "stake")}</div>${sidebar}`,
    );
    expect(t).toContain("how the stake works");
    for (const gone of ["dave", "June 30, 2024", "alice", "bob", "May 2, 2019"]) expect(t).not.toContain(gone);
  });
});

/**
 * A card-style thread: the opening post's <header> holds the thread's title, its counters with the
 * last poster, and the author's block (a person); a reply's header holds the name and date only.
 */
const card = (header: string, n: number, topic: string) =>
  `<div class="MessageCard"><header class="MessageCard__header">${header}</header><span class="MessageCard__postbit"><a href="#post-${n}">#${n}</a> · <a href="#post-${n}"><time datetime="2024-01-0${n}">Jan ${n}, 2024</time></a></span><div class="message-body">${para(topic, 2)}</div></div>`;
const counters = `<div class="MessageCard__thread-info"><span>1.2K views</span> <span>3 replies</span> <span>4 participants</span> <span>last post by <a href="/members/zed.9/">zed</a> <time datetime="2024-02-01">Feb 1, 2024</time></span></div>`;
const person = (who: string, n: number) =>
  `<div class="MessageCard__user-info" itemscope itemtype="https://schema.org/Person"><a class="MessageCard__user-info__name" href="/members/${who}.${n}/">${who}</a> <span>${n * 7} posts · Joined 2019</span></div>`;
const reply = (who: string, n: number, topic: string) =>
  card(
    `<div class="MessageCard__avatar"><a class="avatar" href="/members/${who}.${n}/">${who[0]?.toUpperCase()}</a></div>${person(who, n)}`,
    n,
    topic,
  );

describe("the opening post's header that holds the thread's title", () => {
  it("keeps the name from the author's block, not the last poster beside the counters", () => {
    const opening = card(`<h1>Winter tents</h1>${counters}${person("alice", 1)}`, 1, "tent");
    const t = text(`<div class="thread">${opening + reply("bob", 2, "pole") + reply("carol", 3, "stake")}</div>`);
    expect(t).toMatch(/(^|\n)alice\n[^\n]*Jan 1, 2024\nThe tent note/);
    expect(t).toMatch(/\nbob\n/);
    for (const gone of ["zed", "Feb 1, 2024", "1.2K views"]) expect(t).not.toContain(gone);
  });

  it("takes no name from a title header without an author block: the last poster is not the author", () => {
    const opening = card(`<h1>Winter tents</h1>${counters}`, 1, "tent");
    const t = text(`<div class="thread">${opening + reply("bob", 2, "pole") + reply("carol", 3, "stake")}</div>`);
    expect(t).toContain("how the tent works");
    expect(t).toMatch(/\nbob\n/);
    for (const gone of ["zed", "Feb 1, 2024"]) expect(t).not.toContain(gone);
  });
});
