import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";

const words = [
  "The 2025-26 season is one of the wildest in football history, with minnows qualifying for the World Cup.",
  "Dutch fixtures are listed on the national broadcaster's site; please add them to the opening post.",
  "Thanks for the suggestion. I'm on it, and I will also add the European championship to the list.",
] as const;

/** phpBB's prosilver: the profile column names the poster, and so does "by Bob » date" over the post. */
const phpbbPost = (id: number, who: string, date: string, body: string) =>
  `<div id="p${id}" class="post bg1"><div class="inner">
    <dl class="postprofile"><dt><a href="./memberlist.php?mode=viewprofile&amp;u=${id}"><img src="/flag.png" alt="User avatar"></a><br>
      <a href="./memberlist.php?mode=viewprofile&amp;u=${id}" class="username-coloured">${who}</a></dt>
      <dd>Member</dd><dd><strong>Posts:</strong> 6570</dd></dl>
    <div class="postbody"><ul class="profile-icons"><li class="quote-icon"><a href="./posting.php?mode=quote&amp;p=${id}" title="Reply with quote"><span>Reply with quote</span></a></li></ul>
      <p class="author">by <strong><a href="./memberlist.php?mode=viewprofile&amp;u=${id}" class="username-coloured">${who}</a></strong> &raquo; ${date} </p>
      <div class="content">${body}</div></div></div></div>`;
const phpbbPage = (posts: string) =>
  `<html><head><title>2025-26 Football Season - Forum</title></head><body><div id="wrap"><h2><a href="./viewtopic.php?t=1">2025-26 Football Season</a></h2>
  <div id="page-body">${posts}</div></div></body></html>`;
const phpbbUrl = "https://forum.example.net/viewtopic.php?f=20&t=487157";

/** Invision's two author blocks for wide and narrow screens, each with the name and the post's date. */
const ipsAuthor = (cls: string, who: string, date: string) =>
  `<aside class="${cls}"><h3 class="ipsEntry__username"><a href="https://community.example.com/profile/12-${who.toLowerCase()}/" class="ipsUsername">${who}</a></h3>
    <p class="ipsPhotoPanel__secondary"><time datetime="2025-10-30T10:00:00Z"><span class="ipsTime__long">${date}</span></time></p></aside>`;
const ipsPost = (who: string, date: string, body: string) =>
  `<article class="ipsEntry ipsEntry--post">${ipsAuthor("ipsEntry__author-column", who, date)}${ipsAuthor("ipsEntry__header", who, date)}
    <div class="ipsEntry__content"><div class="ipsEntry__post"><div class="ipsRichText" data-role="commentContent"><p>${body}</p></div></div></div></article>`;
const ipsPage = (posts: string) =>
  `<html><head><title>Payment issues - Community</title></head><body><main><h1>Payment issues</h1><div class="cTopic">${posts}</div></main></body></html>`;
const ipsUrl = "https://community.example.com/topic/1103020-payment-issues/";

const lines = (t: string) => t.split("\n").map((l) => l.trim());

describe("a post's byline printed twice", () => {
  it("keeps one name where the profile column and the 'by Bob » date' line both give it", () => {
    const t = extractMainText(
      phpbbPage(
        phpbbPost(1, "Outer Armatonis", "Tue Aug 27, 2019 1:47 am", words[0]) +
          phpbbPost(2, "The Blaatschapen", "Tue Aug 27, 2019 4:08 am", words[1]) +
          phpbbPost(3, "Minoa", "Tue Aug 27, 2019 5:58 am", words[2]),
      ),
      phpbbUrl,
    ).text;
    expect(t).toContain(words[1]);
    expect(lines(t).filter((l) => l === "The Blaatschapen")).toHaveLength(1);
    expect(lines(t).filter((l) => l === "Minoa")).toHaveLength(1);
  });

  it("keeps one name and date where two author blocks both give them", () => {
    const t = extractMainText(
      ipsPage(
        ipsPost("GrinGEO", "October 29, 2025", words[0]) +
          ipsPost("Daresh", "October 29, 2025", words[1]) +
          ipsPost("GrinGEO", "October 30, 2025", words[2]),
      ),
      ipsUrl,
    ).text;
    expect(t).toContain(words[2]);
    expect(lines(t).filter((l) => l === "Daresh")).toHaveLength(1);
    expect(lines(t).filter((l) => l === "October 30, 2025")).toHaveLength(1);
    expect(lines(t).filter((l) => l === "GrinGEO")).toHaveLength(2);
  });

  it("keeps a line of the post said twice, and a name the post's text names", () => {
    const t = extractMainText(
      ipsPage(
        ipsPost("Daresh", "October 29, 2025", `${words[0]}</p><p>Bump!</p><p>Bump!`) +
          ipsPost("GrinGEO", "October 30, 2025", `Daresh</p><p>Daresh</p><p>${words[1]}`) +
          ipsPost("Daresh", "October 31, 2025", words[2]),
      ),
      ipsUrl,
    ).text;
    expect(lines(t).filter((l) => l === "Bump!")).toHaveLength(2);
    expect(lines(t).filter((l) => l === "Daresh").length).toBeGreaterThanOrEqual(4);
  });
});
