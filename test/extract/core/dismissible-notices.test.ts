import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const post = (who: string, topic: string) =>
  `<article class="message"><div class="message-user"><a href="/members/${who}.1/">${who}</a></div><div class="message-body">${para(topic, 2)}</div></article>`;
/** XenForo's notices list: site announcements above every thread, each with a link to dismiss it. */
const notices = `<ul class="notices notices--block js-notices"><li class="notice js-notice notice--primary"><div class="notice-content"><a href="/account/dismiss-notice?notice_id=30" class="notice-dismiss js-noticeDismiss" title="Dismiss notice"></a><b>Scam Alert. Members are reminded to NOT send money to buy anything. Go get it yourself and pay in person.</b></div></li></ul>`;
/** The notices stand inside the thread's block: one above the posts' block reads as page furniture (content/posts-root.ts). */
const thread = (top: string) =>
  `<html><head><title>Which lathe?</title></head><body><div class="p-body"><div class="p-body-inner"><h1>Which lathe for a beginner?</h1><div class="block-body">${top}${post("alice", "lathe")}${post("bob", "chuck")}${post("carol", "tool post")}</div></div></div></body></html>`;

describe("dismissible notices", () => {
  it("drops a site's announcement that carries a control to dismiss it", () => {
    const t = extractMainText(thread(notices), "https://forum.example.com/threads/which-lathe.18571/").text;
    expect(t).toContain("how the lathe works");
    expect(t).not.toContain("Scam Alert");
  });

  it("keeps a notice the page prints as its own, without a dismiss control", () => {
    const own = `<div class="notice notice--warning"><p>Notice: a lathe bought second hand often lacks its chuck key and change gears, so ask the seller before paying.</p></div>`;
    const t = extractMainText(thread(own), "https://forum.example.com/threads/which-lathe.18571/").text;
    expect(t).toContain("often lacks its chuck key");
  });
});
