import { describe, expect, it } from "vitest";
import { pageKind } from "../../../functions/extract/content/page-kind.ts";
import { parseDocument } from "../../../functions/extract/parse.ts";

const kindOf = (url: string) =>
  pageKind(parseDocument(`<html><head><title>Page</title></head><body><main><h1>Page</h1></main></body></html>`), url);

describe("/t/ and /topic/ in a URL", () => {
  it("does not make a topic or tag index a discussion (news sites' /topic/software, a docs' /topics/ guide, a shop's /t/ category)", () => {
    for (const url of [
      "https://news.example.edu/topic/software",
      "https://www.example.com/topic/Car%20Rental",
      "https://docs.example.com/en/5.1/topics/db/models/",
      "https://shop.example.com/t/mesh-office-chair?ref=abc",
    ])
      expect(kindOf(url).discussion, url).toBe(false);
  });

  it("still reads a forum thread's URL, which carries the thread's number, as a discussion", () => {
    for (const url of [
      "https://users.example.org/t/is-changing-the-msrv-a-non-breaking-change/931828",
      "https://www.example.com/topic/1571202-editing-pc-build-may-2024/",
      "https://example.com/topic/18427/rc1-of-nodebb-v4",
      "https://example.com/t/123270/Year-Tiny-House-real-world",
    ])
      expect(kindOf(url).discussion, url).toBe(true);
  });

  it("reads a 'showtopic' address as a thread: Invision's old index.php?showtopic=N and paths named ShowTopic-", () => {
    for (const url of [
      "https://forum.example.com/index.php?showtopic=48213",
      "https://www.example.com/index.php?act=idx&showtopic=48213&st=20",
      "https://www.example.com/ShowTopic-g294232-i525-k15476375-Tips_for_a_first_visit-Japan.html",
    ])
      expect(kindOf(url).discussion, url).toBe(true);
  });

  it("does not read a page that only mentions topics in its address as a thread ('show-topics', 'topicshow')", () => {
    for (const url of [
      "https://www.example.com/show-topics/gardening",
      "https://www.example.com/blog/showtopics.html",
      "https://www.example.com/news/topicshow-2024",
    ])
      expect(kindOf(url).discussion, url).toBe(false);
  });
});
