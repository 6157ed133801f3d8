import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string, url = "https://forum.example.com/viewtopic.php?t=42") => extractMainText(html, url).text;

const post = (who: string, topic: string, extra = "") =>
  `<div class="post"><div class="author">${who}</div><div class="content">${para(topic, 2)}</div>${extra}</div>`;
const signIn = `<div class="guest"><h4>Create an account or sign in to comment</h4><p>You need to be a member in order to leave a comment</p><p><a href="/register">Create an account</a> Sign up for a new account in our community. It's easy!</p><p><a href="/login">Sign in</a> Already have an account? Sign in here.</p></div>`;
const page = (posts: string) =>
  `<html><body><main><h1>Which tent for winter?</h1><div class="posts">${posts}</div></main></body></html>`;

describe("notices among the posts of a thread", () => {
  it("drops edit notices, gaps between posts and the sign-in panel", () => {
    const t = text(
      page(
        post(
          "alice",
          "tent",
          `<div class="notice">Last edited by <a href="/u/alice">alice</a> on Sun Feb 22, 2026 2:08 am, edited 3 times in total.</div>`,
        ) +
          post("bob", "pole", `<div class="edited">Edited January 29 by bob (see edit history)</div>`) +
          `<div class="gap">3 months later...</div>` +
          post(
            "carol",
            "stake",
            `<span class="light"><strong>Edited <time datetime="2024-04-17">April 18, 2024</time> by carol</strong></span>`,
          ) +
          signIn,
      ),
    );
    expect(t).toContain("how the tent works");
    expect(t).toContain("how the stake works");
    for (const gone of [
      "Last edited by",
      "see edit history",
      "by carol",
      "months later",
      "sign in to comment",
      "Sign up for a new account",
    ])
      expect(t, gone).not.toContain(gone);
  });

  it("drops the thread's byline, its closed status and the panel of who is viewing it", () => {
    const byline = `<div class="p-description"><ul><li><span>Thread starter</span> <a href="/u/alice">alice</a></li><li><span>Start date</span> <time>Jul 9, 2022</time></li></ul></div>`;
    const status = `<dl class="blockStatus"><dt>Status</dt><dd>Not open for further replies.</dd></dl>`;
    const viewers = `<div class="block"><h3>Users who are viewing this thread</h3><p>Total: 2 (members: 0, guests: 2)</p></div>`;
    const t = text(page(byline + post("alice", "tent") + post("bob", "pole") + status + post("carol", "stake") + viewers));
    expect(t).toContain("how the pole works");
    for (const gone of ["Thread starter", "Start date", "Not open for further replies", "viewing this thread", "guests: 2"])
      expect(t, gone).not.toContain(gone);
  });

  it("drops the thread's counters and overview panel ('Viewed 2k times', '12 Posts 5 Posters', 'Top Posters In This Topic')", () => {
    const asked = `<div class="stats"><div>Asked <time>2 years, 2 months ago</time></div><div>Modified <time>1 year ago</time></div><div>Viewed 2k times</div></div>`;
    const counts = `<div class="counts"><span>12</span> <span>Posts</span> <span>5</span> <span>Posters</span> <span>3.2k</span> <span>Views</span> <span>2</span> <span>Watching</span></div>`;
    const overview = `<div class="overview"><ul><li>Replies 154</li><li>Views 26.2k</li></ul></div><div class="posters"><h4>Top Posters In This Topic</h4><ul><li><a href="/u/alice">alice</a> 56 posts</li><li><a href="/u/bob">bob</a> 29 posts</li></ul></div>`;
    const t = text(page(asked + counts + post("alice", "tent") + post("bob", "pole") + post("carol", "stake") + overview));
    expect(t).toContain("how the pole works");
    for (const gone of ["Viewed 2k times", "Asked", "Posters", "Watching", "Top Posters", "Views 26.2k"])
      expect(t, gone).not.toContain(gone);
  });

  it("drops who reacted to a post and the posts' sort control", () => {
    const sort = `<div class="sorter"><a href="?order=date">Sort by date</a> <a href="?order=votes">Sort by votes</a></div>`;
    const t = text(
      page(
        sort +
          post(
            "alice",
            "tent",
            `<div class="reactionsBar"><span>Reactions:</span> <a href="/u/bob">bob</a> and <a href="/u/carol">carol</a></div>`,
          ) +
          post("bob", "pole", `<div class="likes"><a href="/u/alice">alice</a> likes this.</div>`) +
          post("carol", "stake"),
      ),
    );
    expect(t).toContain("how the pole works");
    for (const gone of ["Sort by", "Reactions:", "likes this"]) expect(t, gone).not.toContain(gone);
  });

  it("keeps a post that talks about a thread being closed", () => {
    const t = text(
      page(
        post("alice", "tent", "<p>This thread was closed last year, so I started a new one: what changed since then?</p>") +
          post("bob", "pole") +
          post("carol", "stake"),
      ),
    );
    expect(t).toContain("This thread was closed last year");
  });

  it("drops the reply form under a thread: its heading, labels and terms stay once its fields are gone", () => {
    const form = `<form action="/questions/42/answer/submit" method="post" class="post-form"><h2>Your Answer</h2><textarea name="body"></textarea><div class="guest"><h3>Sign up or <a href="/login">log in</a></h3><h3>Post as a guest</h3><label>Name</label><input name="name"><label>Email</label><input name="email"><span>Required, but never shown</span></div><p>By clicking Post Your Answer, you agree to our terms of service and acknowledge you have read our privacy policy.</p><button>Post Your Answer</button></form>`;
    const t = text(page(post("alice", "tent") + post("bob", "pole") + post("carol", "stake") + form));
    expect(t).toContain("how the stake works");
    for (const gone of ["Your Answer", "Post as a guest", "Required, but never shown", "you agree to our terms"])
      expect(t, gone).not.toContain(gone);
  });

  it("keeps a thread whose posts sit in a form that posts (inline moderation)", () => {
    const t = text(
      page(
        `<form action="inlinemod.php" method="post">${post("alice", "tent") + post("bob", "pole") + post("carol", "stake")}</form>`,
      ),
    );
    expect(t).toContain("how the tent works");
    expect(t).toContain("how the stake works");
  });

  it("keeps a post's own words that start like a notice ('Edited to add: ...')", () => {
    const t = text(
      page(
        post("alice", "tent", "<p>Edited to add: the tent survived the storm on Monday.</p>") +
          post("bob", "pole") +
          post("carol", "stake"),
      ),
    );
    expect(t).toContain("Edited to add: the tent survived");
  });

  it("keeps such lines on pages that are no discussion", () => {
    const html = `<html><body><main><h1>Release notes</h1>${para("release", 3)}<p>Last edited by the docs team on 5 May 2024.</p></main></body></html>`;
    expect(text(html, "https://example.com/docs/release-notes")).toContain("Last edited by the docs team");
  });

  it("drops a member's counts printed on lines of their own in the author card", () => {
    const card = (who: string, n: number, topic: string) =>
      `<div class="MessageCard"><div class="MessageCard__user"><a href="/members/${who}.${n}/">${who}</a><div class="MessageCard__stats">${n * 137} posts · Joined 200${n}</div><div class="MessageCard__extra">Posts: ${n * 3}</div><div class="MessageCard__reg">Registered: 2025-11-0${n}</div><div class="MessageCard__votes">${n * 9} helpful votes</div></div><div class="MessageCard__body">${para(topic, 2)}</div></div>`;
    const t = text(page(card("alice", 1, "tent") + card("bob", 2, "pole")));
    expect(t).toContain("how the pole works");
    for (const gone of ["274 posts", "Joined 2002", "Posts: 6", "Registered", "18 helpful votes"]) expect(t).not.toContain(gone);
  });

  it("keeps a short post that names counts among other words", () => {
    const short = (who: string, line: string) =>
      `<div class="post"><div class="author">${who}</div><div class="content"><p>${line}</p></div></div>`;
    const t = text(
      page(
        post("alice", "tent") +
          short("bob", "410 posts and still no answer") +
          short("carol", "Joined 2002, still here") +
          post("dave", "stake"),
      ),
    );
    expect(t).toContain("410 posts and still no answer");
    expect(t).toContain("Joined 2002, still here");
  });

  it("drops the prompt to ask a question of one's own under a Q&A thread", () => {
    const ask = `<div class="bottom-notice"><div class="box"><p>Start asking to get answers</p><p>Find the answer to your question by asking.</p><a href="/questions/ask">Ask question</a></div></div>`;
    const t = text(page(post("alice", "tent") + post("bob", "pole") + ask), "https://example.com/questions/42/which-tent");
    expect(t).toContain("how the pole works");
    for (const gone of ["Start asking", "Find the answer to your question", "Ask question"]) expect(t).not.toContain(gone);
  });

  it("keeps an answer that opens with such words as part of what it says", () => {
    const answer = `<div class="post"><div class="author">carol</div><div class="content"><p>Start asking to get answers from the rangers before you go: they know which tents hold up in the wind.</p></div></div>`;
    const t = text(page(post("alice", "tent") + answer + post("bob", "pole")), "https://example.com/questions/42/which-tent");
    expect(t).toContain("they know which tents hold up");
  });

  it("drops the initial an avatar without a picture shows beside a post's author", () => {
    const pic = (who: string, topic: string) =>
      `<div class="post"><div class="post-head"><span class="avatar avatar--s"><span class="avatar-u7-s">${who[0]?.toUpperCase()}</span></span> <a href="/members/${who}.7/">${who}</a></div><div class="content">${para(topic, 2)}</div></div>`;
    const t = text(page(pic("gina", "tent") + pic("ravi", "pole")));
    expect(t).toContain("how the pole works");
    expect(t).toMatch(/(^|\n)ravi\n/);
    expect(t).not.toMatch(/(^|\n)R\b/);
  });

  it("drops a post's vote count left alone on a line, its button's icon gone", () => {
    const voted = (who: string, votes: number, topic: string) =>
      `<div class="post"><div class="post-head"><a href="/members/${who}.7/">${who}</a></div><div class="content">${para(topic, 2)}</div><div class="votes"><button aria-label="Upvote"><svg></svg></button><div class="vote-count">${votes}</div></div></div>`;
    const t = text(page(voted("gina", 0, "tent") + voted("ravi", 12, "pole")));
    expect(t).toContain("how the pole works");
    expect(t).not.toMatch(/(^|\n)(0|12)(\n|$)/);
  });

  it("drops a reaction list of one, its count beside the reaction's picture", () => {
    const liked = (who: string, likes: number, topic: string) =>
      `<div class="post"><div class="post-head"><a href="/members/${who}.7/">${who}</a></div><div class="content">${para(topic, 2)}</div><ul class="reactions"><li><img src="/like.png" alt=""> <span>${likes}</span></li></ul></div>`;
    const t = text(page(liked("gina", 3, "tent") + liked("ravi", 7, "pole")));
    expect(t).toContain("how the pole works");
    expect(t).not.toMatch(/(^|\n)(3|7)(\n|$)/);
  });

  it("keeps numbers the poster wrote on lines of their own: list items, table cells", () => {
    const counted = (who: string, topic: string) =>
      `<div class="post"><div class="post-head"><a href="/members/${who}.7/">${who}</a></div><div class="content">${para(topic, 2)}<ol><li>12</li><li>40</li></ol><table><tr><th>Stakes</th><td>16</td></tr></table></div></div>`;
    const t = text(page(counted("gina", "tent") + counted("ravi", "pole")));
    for (const n of ["12", "40", "16"]) expect(t).toMatch(new RegExp(`(^|\\n|\\s)${n}(\\n|\\s|$)`));
  });

  it("keeps a short name in a block named for the avatar and the name together", () => {
    const named = (who: string, topic: string) =>
      `<div class="post"><div class="post-head"><div class="avatar-username"><img src="/a.png" alt=""><span class="name">${who}</span></div></div><div class="content">${para(topic, 2)}</div></div>`;
    const t = text(page(named("Al", "tent") + named("Bo", "pole")));
    expect(t).toMatch(/(^|\n)Bo\n/);
  });

  it("drops a member's badge beside the name ('Discussion starter', 'Administrator')", () => {
    const badged = (who: string, badge: string, topic: string) =>
      `<div class="post"><div class="post-head"><a href="/members/${who}.7/">${who}</a> <span class="starter">${badge}</span></div><div class="rank">${badge === "Discussion starter" ? "Moderator" : "Administrator"}</div><div class="content">${para(topic, 2)}</div></div>`;
    const t = text(page(badged("gina", "Discussion starter", "tent") + badged("ravi", "Staff member", "pole")));
    expect(t).toContain("how the pole works");
    expect(t).toMatch(/(^|\n)gina\n/);
    for (const gone of ["Discussion starter", "Staff member", "Moderator", "Administrator"]) expect(t).not.toContain(gone);
  });

  it("keeps a moderator's note that opens with such a word", () => {
    const note = `<div class="post"><div class="content"><p>Moderator note: keep the thread on winter tents, please.</p></div></div>`;
    const t = text(page(post("alice", "tent") + note + post("bob", "pole")));
    expect(t).toContain("Moderator note: keep the thread on winter tents");
  });
});

describe("a thread's closing prompt to guests, in brackets or after a removed link", () => {
  it("drops '(You must log in or sign up to reply here.)' and 'or Register to comment.'", () => {
    const t = text(
      page(
        post("alice", "tent") +
          post("bob", "pole") +
          post("carol", "stake") +
          `<div class="block-outer"><div class="block-outer-opposite">(You must log in or sign up to reply here.)</div></div><p class="guest-note">or <a href="/register">Register</a> to comment.</p>`,
      ),
    );
    expect(t).toContain("how the stake works");
    expect(t).not.toMatch(/sign up to reply|to comment\./);
  });

  it("keeps a short post that starts with 'to reply' or mentions signing up", () => {
    const own = (who: string, words: string) =>
      `<div class="post"><div class="author">${who}</div><div class="content"><p>${words}</p></div></div>`;
    const t = text(
      page(
        post("alice", "tent") + own("bob", "To reply to your question: yes.") + own("carol", "I had to sign up to reply, sadly."),
      ),
    );
    expect(t).toContain("To reply to your question: yes.");
    expect(t).toContain("I had to sign up to reply, sadly.");
  });
});
