import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";

const url = "https://forum.example.org/showthread.php?t=186269";
const text = (html: string) => extractMainText(html, url).text;

const welcome =
  "Welcome to the Example Forum, the place to be for everyone interested in video conversion. Before you start posting please read the forum rules.";
const rules = `<table class="tborder"><tr><td class="thead">Posting Rules</td></tr><tr><td class="alt1">You may not post new threads<br>You may not post replies<br>You may not post attachments<br>You may not edit your posts<br>BB code is On<br>Smilies are On<br>HTML code is Off</td></tr></table>`;
const jump = `<div class="smallfont">Forum Jump: <select><option>Video Encoding</option><option>Hardware</option><option>Software</option></select></div><div class="smallfont">All times are GMT +1. The time now is 14:01. Powered by a bulletin board, version 3.8.</div>`;
const first =
  "I tested a new graphics card and when I play movies at the usual 23.976 rate the player shows a wrong refresh rate.";
const second = "Does disabling hardware decoding or acceleration in the player change anything?";

/** A vBulletin 3 thread: posts are tables told apart by their ids only (id="post2017066", class "tborder"). */
const thread = (idOf: (n: number) => string) => `<html><body>
<table class="tborder"><tr><td class="alt1">${welcome}</td></tr></table>
<div id="posts">
<div id="edit2017066"><table id="${idOf(2017066)}" class="tborder"><tr><td class="thead">30th March 2025, 16:26</td></tr><tr><td class="alt2"><div>microfast</div><div class="smallfont">Registered User</div></td><td class="alt1"><div id="post_message_2017066">${first}</div></td></tr></table></div>
<div id="edit2017176"><table id="${idOf(2017176)}" class="tborder"><tr><td class="thead">2nd April 2025, 13:59</td></tr><tr><td class="alt2"><div>GeoffreyA</div><div class="smallfont">Registered User</div></td><td class="alt1"><div id="post_message_2017176">${second}</div></td></tr></table></div>
</div>
${rules}${jump}</body></html>`;

describe("where a thread's posts lie: posts named by their ids", () => {
  it("reads a thread whose posts only their ids name (vBulletin 3's tables) from the posts, not the whole page", () => {
    const t = text(thread((n) => `post${n}`));
    expect(t).toContain(first);
    expect(t).toContain(second);
    expect(t).not.toContain("Welcome to the Example Forum");
    expect(t).not.toContain("You may not post replies");
    expect(t).not.toContain("Forum Jump");
  });

  it("near miss: numbered ids of other things (rows, items) name no posts; the page is read as before", () => {
    const t = text(thread((n) => `row${n}`));
    expect(t).toContain(first);
    expect(t).toContain("You may not post replies");
  });
});

const notice =
  "You're browsing the message boards as a guest. Sign up for free, or log in if you already have an account, to be able to post messages and view media in posts.";
const others = `<div class="pod"><h2 class="title">More Topics from this Board</h2><ul>${[
  "In this thread, we post random things: rest in peace handhelds",
  "Disney Afternoon Collection coming February 26",
  "Should I play a game for four hours straight tonight?",
  "Favorite release from this year so far, and why?",
]
  .map((t, i) => `<li><a href="/boards/1/${i}">${t}</a> <span>${i + 3} replies</span></li>`)
  .join("")}</ul></div>`;
const replies = [
  "No stream link this time. The recording will just go up on their channel an hour from now.",
  "I don't know if the timing is unusual, but this early slot makes me think it is going to be a big one.",
  "Ready with snacks. Hoping for the long-rumoured collection of the handheld games at last.",
];
const reply = (who: string, body: string) =>
  `<div class="message"><div class="message-user"><a href="/u/${who}">${who}</a></div><div class="message-body">${body}</div></div>`;

describe("where a thread's posts lie: a root wider than the thread", () => {
  it("narrows a root holding the posts and the furniture around them (guest notice, other topics) to the posts", () => {
    const html = `<html><body><header><nav><a href="/">Home</a><a href="/boards">Boards</a></nav></header>
<div class="container content"><div class="forum_anon">${notice}</div><ol class="crumbs"><li><a href="/boards">Boards</a></li><li><a href="/boards/1">Consoles</a></li></ol>
<div class="msg_list">${replies.map((b, i) => reply(`user${i}`, b)).join("")}</div>${others}</div>
<footer><a href="/privacy">Privacy</a></footer></body></html>`;
    const t = extractMainText(html, "https://boards.example.com/boards/1-consoles/80702016").text;
    for (const b of replies) expect(t).toContain(b);
    expect(t).not.toContain("browsing the message boards as a guest");
    expect(t).not.toContain("Disney Afternoon Collection");
  });

  it("near miss: an opening post set apart from the replies' container, in the same body markup, keeps the wider root", () => {
    const opening =
      "Although we have travelled a lot, we have never been to Japan. We are torn between planning it ourselves and taking a tour with some freedom built in.";
    const answer = (who: string, body: string) =>
      `<article class="reply"><header>Posted by <a href="/u/${who}">${who}</a></header><div class="content markdown"><p>${body}</p></div></article>`;
    const html = `<html><body><div class="main-content">
<article class="topic"><h1>First trip to Japan</h1><div class="content markdown"><p>${opening}</p></div></article>
<section id="replies">${replies.map((b, i) => answer(`user${i}`, b)).join("")}</section></div></body></html>`;
    const t = extractMainText(html, "https://community.example.com/travel-forum/asia/first-trip-to-japan").text;
    expect(t).toContain(opening);
    for (const b of replies) expect(t).toContain(b);
  });
});
