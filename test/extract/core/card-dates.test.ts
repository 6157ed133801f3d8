import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";

const words = [
  "After switching Messages in iCloud off, the storage page still says Messages take up 16 GB. How come?",
  "On your second screenshot did you click on Messages and choose Disable and delete? That frees it.",
  "It took a day for the storage figure to update here, so give it some time before trying again.",
] as const;

/** XenForo's author card: the member's join date as a definition list whose term is an icon. */
const post = (who: string, joined: string, date: string, body: string) =>
  `<article class="message message--post"><div class="message-inner"><div class="message-cell message-cell--user"><section class="message-user">` +
  `<h4 class="message-name"><a href="/members/${who}.30/" class="username">${who}</a></h4>` +
  `<div class="message-userExtras"><dl class="pairs"><dt><span title="Joined"><i class="fa fa-user"></i></span></dt><dd>${joined}</dd></dl></div>` +
  `</section></div><div class="message-cell message-cell--main"><header class="message-attribution"><time class="u-dt" datetime="2022-07-09">${date}</time></header>` +
  `<div class="message-content"><div class="bbWrapper">${body}</div></div></div></div></article>`;
const page = (posts: string) =>
  `<html><head><title>Messages in iCloud</title></head><body><main><h1>Messages in iCloud</h1><div class="block-body">${posts}</div></main></body></html>`;
const url = "https://forums.example.com/threads/messages-in-icloud.2353111/";

/** Three posts; the first and third by the same member, each card with its join date. */
const thread = (third: string = words[2]) =>
  page(
    post("felixen", "Apr 13, 2009", "Jul 9, 2022", words[0]) +
      post("spikeymike", "Jul 6, 2010", "Jul 9, 2022", words[1]) +
      post("felixen", "Apr 13, 2009", "Jul 10, 2022", third),
  );

describe("a date in an author card's definition list", () => {
  it("is the member's, not the post's: it goes where the term is an icon", () => {
    const t = extractMainText(thread(), url).text;
    expect(t).toContain(words[1]);
    expect(t).not.toContain("Apr 13, 2009");
    expect(t).not.toContain("Jul 6, 2010");
  });

  it("keeps the post's date beside the name", () => {
    const t = extractMainText(thread(), url).text;
    expect(t).toContain("spikeymike");
    expect(t).toContain("Jul 10, 2022");
  });

  it("near miss: the same date written in a post, or as a line of its own there, stays", () => {
    const t = extractMainText(
      thread(`<p>My account dates from Apr 13, 2009, and the figure never moved.</p><p>Apr 13, 2009</p>`),
      url,
    ).text;
    expect(t).toContain("My account dates from Apr 13, 2009, and the figure never moved.");
    expect(t.split("Apr 13, 2009").length - 1).toBe(2);
  });
});
