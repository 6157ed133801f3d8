import { describe, expect, it } from "vitest";
import { pageKind } from "../../../functions/extract/content/page-kind.ts";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { parseDocument } from "../../../functions/extract/parse.ts";

const kindOf = (url: string) =>
  pageKind(parseDocument(`<html><head><title>Page</title></head><body><main><h1>Page</h1></main></body></html>`), url);

/** A link aggregator's post (Lemmy): the post, then its comment tree, marked up as comments. */
const comment = (who: string, words: string, replies = "") =>
  `<li class="comment list-unstyled"><article class="details comment-node"><div class="d-flex"><a href="/u/${who}">${who}</a><span>1 year ago</span></div><div class="comment-content"><p>${words}</p></div></article>${replies ? `<ul class="comments">${replies}</ul>` : ""}</li>`;
const page = `<html><head><title>Development update - Lemmy</title></head><body>
<nav><a href="/">Home</a><a href="/communities">Communities</a></nav>
<main><div class="post-listing"><h1>Development update</h1><p>Posted by dev to Announcements</p>
<div class="md-div"><p>This release adds post scheduling, a setting to reject votes from other instances, and a long list of fixes to the way nested comments are fetched.</p>
<p>Thanks to everyone who tested the release candidate and reported the performance problems we found on the first try.</p></div></div>
<section class="comments"><ul class="comments">
${comment("ada", "Rejecting remote votes is a welcome change: alt accounts on other servers were gaming the scores.", comment("dev", "That was the reason for it, and it keeps votes anonymous without cutting the instance off."))}
${comment("bo", "Post scheduling is huge for moderators of busy communities. Lots of good stuff in here.")}
</ul></section></main><footer><a href="/legal">Legal</a></footer></body></html>`;

describe("/post/ and a number in a URL", () => {
  it("reads a post with its comment tree as a thread: the comments stay", () => {
    const t = extractMainText(page, "https://lemmy.example.org/post/21018364").text;
    expect(t).toContain("adds post scheduling");
    expect(t).toContain("alt accounts on other servers");
    expect(t).toContain("keeps votes anonymous");
    expect(t).toContain("busy communities");
  });

  it("leaves a blog's post with its slug as a story: its comments go", () => {
    const t = extractMainText(page, "https://www.example.com/blog/post/2026-01-26-development-update").text;
    expect(t).toContain("adds post scheduling");
    expect(t).not.toContain("alt accounts on other servers");
  });

  it("takes a bare number ending the path, not a number before a slug or inside one", () => {
    for (const url of [
      "https://lemmy.example.org/post/21018364",
      "https://example.org/post/42/",
      "https://example.org/post/42?sort=new",
    ])
      expect(kindOf(url).discussion, url).toBe(true);
    for (const url of [
      "https://www.example.org/post/23-new-businesses-now-open",
      "https://blog.example.com/post/712034/summer-sale-starts",
      "https://example.com/blog/post/2026-01-26-postgresql-query-optimization/view",
    ])
      expect(kindOf(url).discussion, url).toBe(false);
  });
});
