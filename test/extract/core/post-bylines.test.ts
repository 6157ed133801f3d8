import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string, url = "https://forum.example.com/threads/winter-tents.42/") => extractMainText(html, url).text;

const page = (posts: string) =>
  `<html><head><title>Winter tents</title></head><body><main><h1>Winter tents</h1><div class="block-body">${posts}</div></main></body></html>`;

/** A XenForo-style post: the author card (avatar, name, rank, join date, post count) and a header with the date. */
const post = (who: string, n: number, topic: string) =>
  `<article class="message"><div class="message-cell message-cell--user"><a class="avatar" href="/members/${who}.${n}/"><img alt="${who}" src="/a/${n}.jpg"></a><h4 class="message-name"><a href="/members/${who}.${n}/">${who}</a></h4><h5 class="userTitle">Well-known member</h5><dl><dt>Joined</dt><dd>Aug 24, 2006</dd></dl><dl><dt>Messages</dt><dd>${n * 37}</dd></dl></div><div class="message-cell message-cell--main"><header class="message-attribution"><time datetime="2024-09-2${n}">Sep 2${n}, 2024</time><a href="/threads/winter-tents.42/post-${n}">Share</a></header><div class="message-body">${para(topic, 2)}</div><div class="message-actions"><a href="/report/${n}">Report</a> <a href="/reply/${n}">Reply</a></div></div></article>`;

describe("a post's byline in a thread", () => {
  it("keeps each post's author name and date where the post chrome was; the rest of the card goes", () => {
    const t = text(page(post("alice", 1, "tent") + post("bob", 2, "pole") + post("carol", 3, "stake")));
    expect(t).toContain("how the pole works");
    expect(t).toMatch(/bob\nSep 22, 2024\nThe pole note/);
    for (const chrome of ["Well-known member", "Joined", "Aug 24, 2006", "74", "Share", "Report"])
      expect(t).not.toContain(chrome);
  });

  it("takes no name from a card without a link to a profile, nor from other links in the chrome", () => {
    const plain = (n: number, topic: string) =>
      `<div class="post"><div class="post-info"><span>Guest</span> <a href="/threads/winter-tents.42/#p${n}">Permalink</a> <span>${n * 3} posts</span></div><div class="post-text">${para(topic, 2)}</div></div>`;
    const t = text(page(plain(1, "tent") + plain(2, "pole") + plain(3, "stake")));
    expect(t).toContain("how the stake works");
    for (const chrome of ["Guest", "Permalink", "6 posts"]) expect(t).not.toContain(chrome);
  });

  it("keeps a post's date printed as text where the template has no <time> (vBulletin's date span, phpBB's 'by Bob » date')", () => {
    const vb = (who: string, n: number, topic: string) =>
      `<li class="postbit"><div class="posthead"><span class="postdate"><span class="date">11-2${n}-2024,&nbsp;<span class="time">01:5${n} PM</span></span></span> <a href="/showthread.php?t=42&p=${n}" class="postcounter">#${n}</a></div><div class="userinfo"><a class="username" href="member.php?u=${n}">${who}</a></div><div class="postbody">${para(topic, 2)}</div></li>`;
    const t = text(
      `<html><head><title>Hosting</title></head><body><ol class="posts">${vb("alice", 1, "host") + vb("bob", 2, "server") + vb("carol", 3, "backup")}</ol></body></html>`,
      "https://forum.example.com/showthread.php?t=42",
    );
    expect(t).toMatch(/11-22-2024, 01:52 PM\nbob\nThe server note/);
    expect(t).not.toContain("#2");
    const bb = (who: string, n: number, topic: string) =>
      `<div class="post"><div class="postbody"><div class="post-head"><span class="by">by <a href="./memberlist.php?mode=viewprofile&u=${n}">${who}</a> » </span>Sun Dec 1${n}, 2023 11:2${n} am</div><div class="content">${para(topic, 2)}</div></div></div>`;
    const b = text(
      `<html><head><title>LEDs</title></head><body><div class="topic">${bb("alice", 1, "led") + bb("bob", 2, "pin") + bb("carol", 3, "board")}</div></body></html>`,
      "https://forum.example.com/viewtopic.php?t=7",
    );
    expect(b).toMatch(/bob\nSun Dec 12, 2023 11:22 am\nThe pin note/);
  });

  it("takes no post date from the author card's join or registration date", () => {
    const card = (who: string, n: number, topic: string) =>
      `<div class="post"><div class="postprofile"><a href="./memberlist.php?mode=viewprofile&u=${n}" class="username">${who}</a><div class="profile-joined"><strong>Joined:</strong> Mon Jul 2${n}, 2017 9:28 am</div><div class="profile-reg">Registered <span>Jul 2${n}, 2017</span></div></div><div class="content">${para(topic, 2)}</div></div>`;
    const t = text(
      `<html><head><title>LEDs</title></head><body><div class="topic">${card("alice", 1, "led") + card("bob", 2, "pin") + card("carol", 3, "board")}</div></body></html>`,
      "https://forum.example.com/viewtopic.php?t=7",
    );
    expect(t).toMatch(/bob\nThe pin note/);
    expect(t).not.toContain("2017");
  });

  it("takes the name, not the initial an avatar without a picture shows, from a card whose avatar links to the profile", () => {
    const card = (who: string, n: number, topic: string) =>
      `<article class="message"><div class="message-cell message-cell--user"><a class="avatar avatar--default" href="/members/${who}.${n}/"><span class="avatar-u${n}-m">${who[0]?.toUpperCase()}</span></a><h4 class="message-name"><a href="/members/${who}.${n}/">${who}</a></h4><dl><dt>Messages</dt><dd>${n * 37}</dd></dl></div><div class="message-cell message-cell--main"><div class="message-body">${para(topic, 2)}</div></div></article>`;
    const t = text(page(card("alice", 1, "tent") + card("bob", 2, "pole") + card("carol", 3, "stake")));
    expect(t).toMatch(/\nbob\nThe pole note/);
    expect(t.split("\n")).not.toContain("B");
  });

  it("still takes the name from a profile link inside a block named for the avatar and the name together", () => {
    const card = (who: string, n: number, topic: string) =>
      `<div class="post"><div class="post-user"><div class="has-avatar avatar-username"><img src="/a/${n}.png" alt=""><a href="/members/${who}.${n}/">${who}</a></div><span>${n * 5} posts</span></div><div class="post-text">${para(topic, 2)}</div></div>`;
    const t = text(page(card("alice", 1, "tent") + card("bob", 2, "pole") + card("carol", 3, "stake")));
    expect(t).toMatch(/\nbob\nThe pole note/);
  });
});

/** A FluxBB-style post: the author column is a definition list whose one term is the name, bold, without a link or class. */
const flux = (card: string, n: number, topic: string) =>
  `<div class="blockpost"><h2><a href="viewtopic.php?pid=${n}#p${n}">2024-08-0${n} 10:59:47</a></h2><div class="postbody"><div class="postleft">${card}</div><div class="postright"><div class="postmsg">${para(topic, 2)}</div></div></div></div>`;
const fluxPage = (posts: string) =>
  text(
    `<html><head><title>Forum software</title></head><body><div id="punviewtopic">${posts}</div></body></html>`,
    "https://bbs.example.org/viewtopic.php?id=298271",
  );

describe("an author card written as a definition list", () => {
  it("keeps the one term heading the card as the name; the title and counts go", () => {
    const card = (who: string, n: number) =>
      `<dl><dt><strong>${who}</strong></dt><dd class="usertitle"><strong>Member</strong></dd><dd><span>Registered: 2024-01-2${n}</span></dd><dd><span>Posts: ${n * 49}</span></dd></dl>`;
    const t = fluxPage(flux(card("alice", 1), 1, "tent") + flux(card("bob", 2), 2, "pole") + flux(card("carol", 3), 3, "stake"));
    expect(t).toMatch(/\nbob\nThe pole note/);
    for (const chrome of ["Member", "Registered", "Posts: 98"]) expect(t).not.toContain(chrome);
  });

  it("takes no name from a list of labels and values, one term for each", () => {
    const card = (n: number) => `<dl><dt>Location</dt><dd>Oslo</dd><dt>Posts</dt><dd>${n * 49}</dd></dl>`;
    const one = () => `<dl><dt>Location</dt><dd>Oslo</dd></dl>`;
    const t = fluxPage(flux(card(1), 1, "tent") + flux(one(), 2, "pole") + flux(card(3), 3, "stake"));
    expect(t).toContain("how the pole works");
    expect(t).not.toContain("Location");
  });
});
