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
