import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (body: string) =>
  extractMainText(
    `<!doctype html><html><head><meta property="og:type" content="article"><title>What is the warehouse?</title></head><body><main><article><h1>What is the warehouse?</h1>${para("warehouse", 4)}${body}${para("storage", 3)}</article></main></body></html>`,
    "https://cloud.example.com/warehouse/docs/introduction",
  ).text;

describe("items of a list that is not a link list", () => {
  it("keeps an item that is mostly its link in a list whose text is mostly not links", () => {
    const t = text(
      `<ul><li><a href="/warehouse/docs/hierarchy">Learn about common patterns to organize warehouse resources</a> in the data marts.</li>` +
        `<li><a href="/warehouse/docs/datasets">Learn about datasets</a>, the top-level container of tables and views that the warehouse keeps for every project you create.</li>` +
        `<li>Load data with the batch loader, which reads files from storage buckets and writes them into tables as they arrive.</li></ul>`,
    );
    expect(t).toContain("Learn about common patterns to organize warehouse resources");
    expect(t).toContain("the top-level container of tables");
  });

  it("still removes the items of a list that is mostly links", () => {
    const t = text(
      `<ul><li><a href="/warehouse/docs/hierarchy">Learn about common patterns to organize warehouse resources</a> in the data marts.</li>` +
        `<li><a href="/warehouse/docs/datasets">Learn about the datasets and tables of a project</a> in short.</li>` +
        `<li><a href="/warehouse/docs/loading">Load data into the warehouse from files and streams</a> today.</li></ul>`,
    );
    expect(t).toContain("how the storage works");
    expect(t).not.toContain("Learn about common patterns");
  });
});
