import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string) => extractMainText(html, "https://docs.example.com/guide/getting-started").text;

describe("utility classes read without their conditions", () => {
  it("keeps a code block styled for a theme whose sidebar is filled", () => {
    const html = `<html><body><main><h1>Getting started</h1>${para("install step", 3)}
      <div class="group/codeblock grid page-api-block:ml-0"><pre class="relative overflow-auto p-2 [html.theme-bold.sidebar-filled_&]:bg-tint-base"><code>$ npm i @example/support</code></pre></div>
      ${para("exercise", 2)}</main></body></html>`;
    const t = text(html);
    for (const want of ["npm i @example/support", "how the install step works", "how the exercise works"])
      expect(t).toContain(want);
  });

  it("still drops a column sized as the sidebar, under a screen-size condition", () => {
    const html = `<html><body><main><h1>Getting started</h1>${para("install step", 3)}${para("exercise", 2)}</main>
      <div class="lg:absolute lg:max-w-[--sidebar-width] flex flex-col"><span>Bare metal servers, deployed in 15 minutes</span><p>Get dedicated resources for your workloads.</p></div></body></html>`;
    const t = text(html);
    expect(t).toContain("how the exercise works");
    expect(t).not.toContain("Bare metal servers");
  });
});
