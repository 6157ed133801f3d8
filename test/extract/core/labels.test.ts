import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string, url = "https://example.com/services/plumbing") => extractMainText(html, url).text;

describe("call-to-action labels left inside the content", () => {
  it("drops blocks that are nothing but a call to action ('Learn more', 'Read more', 'View all', '3 likes')", () => {
    const labels = [
      "Learn more",
      "Read more",
      "View all",
      "Shop now",
      "Read full article",
      "Continue reading",
      "3 likes",
      "Skip to main content",
    ];
    const blocks = labels.map(
      (l, i) => `<section><h2>Offer ${i}</h2>${para(`offer ${i}`, 2)}<div class="cta"><a href="/x${i}">${l}</a></div></section>`,
    );
    const t = text(`<html><body><main><h1>Plumbing</h1>${blocks.join("")}</main></body></html>`);
    for (let i = 0; i < labels.length; i++) expect(t).toContain(`how the offer ${i} works`);
    for (const l of labels) expect(t).not.toContain(l);
  });

  it("keeps a call to action inside a sentence, and a longer block that only starts like one", () => {
    const html = `<html><body><main><h1>Plumbing</h1>${para("pipe", 3)}
      <p>Learn more about our pricing on the rates page, or call us.</p><div>Read more stories from our customers below this line</div></main></body></html>`;
    const t = text(html);
    expect(t).toContain("Learn more about our pricing");
    expect(t).toContain("Read more stories from our customers");
  });
});

describe("button-styled links (calls to action)", () => {
  it("drops a link styled as a button with a short label, in a section or in each card", () => {
    const cards = [1, 2, 3, 4]
      .map(
        (i) =>
          `<div class="card"><h3>Plan ${i}</h3>${para(`plan ${i}`, 1)}<a class="btn btn-primary" href="/buy${i}">Book your stay</a></div>`,
      )
      .join("");
    const html = `<html><body><main><h1>Hosting</h1>${para("hosting", 3)}
      <p><a class="cta-link" href="/start">Get your free trial</a> <a role="button" href="/demo">Talk to our team</a></p>
      <div class="plans">${cards}</div></main></body></html>`;
    const t = text(html);
    expect(t).toContain("how the hosting works");
    expect(t).toContain("how the plan 4 works");
    expect(t).not.toContain("Book your stay");
    expect(t).not.toContain("Get your free trial");
    expect(t).not.toContain("Talk to our team");
  });

  it("keeps plain links, a button-styled link with a long text, and classes that only contain 'btn' in a word", () => {
    const html = `<html><body><main><h1>Hosting</h1>${para("hosting", 3)}
      <p>Before you move a site, read <a href="/guide">the setup guide</a> first, then copy your files over.</p>
      <p>Most customers start here: <a class="button" href="/long">Download the complete hosting migration checklist as a PDF</a>, then <a class="buttonless" href="/plans">compare the plans</a> we offer.</p></main></body></html>`;
    const t = text(html);
    expect(t).toContain("the setup guide");
    expect(t).toContain("Download the complete hosting migration checklist");
    expect(t).toContain("compare the plans");
  });
});

describe("blocks that are one link with an imperative label (calls to action without a class)", () => {
  it("drops a block holding only a short link that asks to act ('Read the documentation', 'Watch video')", () => {
    const labels = ["Read the documentation", "Explore the guide", "Watch video", "Register now", "Schedule a demo"];
    const blocks = labels.map(
      (l, i) => `<section><h2>Feature ${i}</h2>${para(`feature ${i}`, 2)}<div><a href="/x${i}">${l}</a></div></section>`,
    );
    const t = text(`<html><body><main><h1>Functions</h1>${blocks.join("")}</main></body></html>`);
    for (let i = 0; i < labels.length; i++) expect(t).toContain(`how the feature ${i} works`);
    for (const l of labels) expect(t, l).not.toContain(l);
  });

  it("keeps a linked heading, a link in a sentence, a long link and a link whose label names a thing", () => {
    const html = `<html><body><main><h1>Functions</h1>${para("feature", 3)}
      <h3><a href="/guide">Read the developer guide</a></h3>${para("guide", 2)}
      <p>You can <a href="/docs">read the documentation</a> before you start, or ask the team for a walk-through of the setup.</p>${para("setup", 2)}
      <div><a href="/long">Download the complete serverless migration checklist as a PDF for your team</a></div>${para("migration", 2)}
      <div><a href="/pricing">Pricing and plans</a></div>${para("pricing", 2)}</main></body></html>`;
    const t = text(html);
    expect(t).toContain("Read the developer guide");
    expect(t).toContain("read the documentation");
    expect(t).toContain("Download the complete serverless migration checklist");
    expect(t).toContain("Pricing and plans");
  });
});

describe("way-back links left inside the content ('Back to blog', 'Return to General', 'Go to GitHub')", () => {
  it("drops a block that is nothing but a short link back to where the reader came from", () => {
    const labels = ["Back to blog", "Return to General", "Go to GitHub", "Back to Resources section"];
    const blocks = labels.map(
      (l, i) => `<section><h2>Topic ${i}</h2>${para(`topic ${i}`, 2)}<p><a href="/x${i}">${l}</a></p></section>`,
    );
    const t = text(`<html><body><main><h1>Plumbing</h1>${blocks.join("")}</main></body></html>`);
    for (let i = 0; i < labels.length; i++) expect(t).toContain(`how the topic ${i} works`);
    for (const l of labels) expect(t, l).not.toContain(l);
  });

  it("keeps a sentence that says to go back, a linked heading and a long linked title", () => {
    const html = `<html><body><main><h1>Plumbing</h1>${para("pipe", 3)}
      <p>Go to the main valve first, then <a href="/valves">return to the tap</a> and open it slowly.</p>${para("valve", 2)}
      <h3><a href="/guide">Back to basics</a></h3>${para("basics", 2)}
      <div><a href="/post">Back to The Future: how old pipes shaped the modern bathroom</a></div>${para("history", 2)}</main></body></html>`;
    const t = text(html);
    expect(t).toContain("Go to the main valve first");
    expect(t).toContain("return to the tap");
    expect(t).toContain("Back to basics");
    expect(t).toContain("Back to The Future: how old pipes shaped the modern bathroom");
  });
});

describe("a disclosure's toggle label ('Expand all', 'Expand description')", () => {
  it("drops a block that is nothing but the label", () => {
    const html = `<html><body><main><h1>Plumbing</h1><div class="toolbar"><span>Expand all</span></div>${para("pipe", 3)}
      <details open><summary><span>Expand description</span></summary>${para("valve", 2)}</details><div>Collapse</div></main></body></html>`;
    const t = text(html);
    expect(t).toContain("how the pipe works");
    expect(t).toContain("how the valve works");
    expect(t).not.toContain("Expand all");
    expect(t).not.toContain("Expand description");
    expect(t).not.toContain("Collapse");
  });

  it("keeps headings and lines that only start with the word", () => {
    const html = `<html><body><main><h1>Plumbing</h1>${para("pipe", 3)}<h2>Expand your bathroom</h2>${para("bath", 2)}
      <p>Collapse of old cast-iron drains is the most common call we get in winter.</p></main></body></html>`;
    const t = text(html);
    expect(t).toContain("Expand your bathroom");
    expect(t).toContain("Collapse of old cast-iron drains");
  });
});

describe("template expressions a script never filled in", () => {
  it("drops blocks that are nothing but {{ … }} and keeps text that only mentions braces", () => {
    const html = `<html><body><main><h1>Plumbing</h1>${para("pipe", 3)}<div class="alert"><strong>{{ board.errors[1179].message }}</strong></div>
      <div>{{ upvoteCount | shortNum }} {{ label }}</div><p>Write {{ name }} in the template to print the customer's name on every invoice you send.</p></main></body></html>`;
    const t = text(html);
    expect(t).toContain("how the pipe works");
    expect(t).not.toContain("board.errors");
    expect(t).not.toContain("shortNum");
    expect(t).toContain("Write {{ name }} in the template");
  });
});

describe("notices for readers without scripts", () => {
  it("drops a kept <noscript> notice and keeps prose that only mentions JavaScript", () => {
    const html = `<html><body><main><h1>Plumbing</h1><noscript><div class="alert"><p>Your browser does not seem to support JavaScript. As a result, your viewing experience will be diminished, and you have been placed in read-only mode.</p><p>Please download a browser that supports JavaScript, or enable it if it's disabled (i.e. NoScript).</p></div></noscript>${para("pipe", 3)}<p>Our booking form needs JavaScript: if your browser blocks it, call us and we book the visit by phone.</p></main></body></html>`;
    const t = text(html);
    expect(t).toContain("how the pipe works");
    expect(t).not.toContain("does not seem to support JavaScript");
    expect(t).not.toContain("download a browser");
    expect(t).toContain("Our booking form needs JavaScript");
  });
});

describe("notices for readers on old browsers", () => {
  it("drops an 'upgrade your browser' bar above a list and keeps prose about browsers", () => {
    const events = ["Cloud Summit 2026", "Frontend Forum", "Data Days Online", "Security Week", "AI Builders Meetup"]
      .map((e, i) => `<li class="event"><a href="/e/${i}">${e}</a><p>Online event, free to join, March ${i + 3}</p></li>`)
      .join("");
    const html = `<html><body><main><div class="notice-bar"><span>Your version of Internet Explorer is no longer supported. Please <a href="/help/browsers">upgrade your browser</a>.</span></div>
      <h1>Online tech conferences</h1><div class="faq"><p>Your browser is out of date when it no longer gets security updates. Our guide explains how to tell, and what to install instead, before you join a stream.</p></div>
      <ul class="events">${events}</ul></main></body></html>`;
    const t = text(html, "https://events.example.com/d/online/tech-conferences/");
    expect(t).toContain("Cloud Summit 2026");
    expect(t).toContain("AI Builders Meetup");
    expect(t).not.toContain("Internet Explorer is no longer supported");
    expect(t).toContain("Our guide explains how to tell");
  });
});

describe("a table of contents' title left when its links went", () => {
  const page = (inner: string) =>
    text(
      `<!doctype html><html><head><meta property="og:type" content="article"></head><body><main><article><h1>Home office guide</h1>${para("intro", 3)}${inner}${para("desk", 3)}<h2>Chairs</h2>${para("chair", 3)}</article></main></body></html>`,
      "https://example.com/blog/home-office",
    );

  it("drops 'Table of Contents', 'In this article', 'Jump to:' over the (removed) list of links", () => {
    for (const label of ["Table of Contents", "In this article", "Jump to:"]) {
      const t = page(
        `<div class="box"><p>${label}</p><ul><li><a href="#desk">Desk</a></li><li><a href="#chairs">Chairs</a></li></ul></div>`,
      );
      expect(t).not.toContain(label);
      expect(t).toContain("how the chair works");
    }
  });

  it("keeps a sentence that starts the same way", () => {
    const t = page(`<p>In this article, we compare desks and chairs for small rooms.</p>`);
    expect(t).toContain("In this article, we compare desks");
  });
});
