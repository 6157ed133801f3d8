import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string) => extractMainText(html, "https://www.example.com/").text;

const issue = (key: string, title: string) => `<div class="Issue_row__a1"><span>${key}</span><span>${title}</span></div>`;

describe("product mock-ups drawn in HTML on a landing page", () => {
  it("drops an illustration or animation component's fake screen, keeps the section's own words", () => {
    const html = `<html><body><main>
      <section class="PageSection_root__x1"><h2>Plan the work</h2>${para("roadmap planning", 3)}
        <div class="PageSection_illustration__P1Yb9"><div class="Board_col__z"><span>Backlog 8</span>
          ${issue("ENG-2085", "Reduce UI flicker during sync")}${issue("ENG-2094", "Add buffering for event streams")}${issue("ENG-2092", "Fix delayed route updates")}</div></div></section>
      <section><h2>Take payments</h2>${para("checkout", 3)}
        <div class="PaymentsHeroAnimation"><p>Choose your plan</p><p>Monthly subscription</p><p>Email jane.doe@example.com</p><p>Pay $168.00</p></div></section>
      </main></body></html>`;
    const t = text(html);
    for (const want of ["Plan the work", "how the roadmap planning works", "Take payments", "how the checkout works"])
      expect(t).toContain(want);
    for (const gone of ["ENG-2085", "Reduce UI flicker", "Backlog 8", "Choose your plan", "Pay $168.00"])
      expect(t).not.toContain(gone);
  });

  it("keeps blocks whose utility classes only animate how the page's own text comes in", () => {
    const html = `<html><body><main>
      <div class="block-heading animation animation--effect-2-scroll"><h2>Use cases</h2><p>Apply serverless functions to a variety of use cases.</p></div>
      <div class="block-feature animation-element fade-in"><h3>Real-time processing</h3><p>Process your files, data and event streams as they arrive.</p></div>
      <div class="card no-animation"><h3>Workflow orchestration</h3><p>Simplify complex orchestration needs with durable functions.</p></div>
      ${para("serverless", 3)}</main></body></html>`;
    const t = text(html);
    for (const want of [
      "Apply serverless functions",
      "Process your files, data and event streams",
      "Simplify complex orchestration",
    ])
      expect(t).toContain(want);
  });
});
