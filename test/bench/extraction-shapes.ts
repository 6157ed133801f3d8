/**
 * Hostile page shapes (`npm run bench -- extraction --only shapes`): how extraction time grows with
 * the number of blocks of one shape. Each shape is timed at n and 4n blocks; time that grows 4x is
 * linear, 16x quadratic. Plain paragraphs are the anchor, timed in the same run: the machine's speed
 * drifts, the growth ratios hold. Two rules were quadratic before this section existed (10,000
 * sibling spans took 9 s in the echo rule, 3,000 phone-only blocks 12 s in the phone-copy rule);
 * a growth well above the anchor's is the sign of another. Four more were found so (a glossary's
 * terms counted once per term; /\s+$/ and like regexes on a long run inside a <pre>, a cell's code
 * or a byline, which V8 runs from each character of the run). Then three more: htmlparser2's stack
 * of open elements (unclosed tags: quadratic in the depth), and a chain of wrappers over a run of
 * empty blocks (or of inline elements over a run of them), read in full at each wrapper by the
 * facet panels' first-block search, the single-child walks, the word-seam walk and the search for
 * lines that are one link (nested lists).
 */
import { extractMainText } from "../../functions/extract/extract.ts";

const sentence = (i: number) => `Block number ${i} says something of its own, word ${i * 7} and word ${i * 13}.`;

/** Plain paragraphs, the text beside a run (the run alone would not be chosen as the content). */
const SHAPES_ANCHOR = (n: number) => Array.from({ length: Math.min(n, 20) }, (_, i) => `<p>${sentence(i)}</p>`).join("");

/** Each shape's body for `n` blocks (a run: n times 10 or 20 characters). */
const SHAPES: Record<string, (n: number) => string> = {
  "paragraphs (anchor)": (n) => Array.from({ length: n }, (_, i) => `<p>${sentence(i)}</p>`).join(""),
  "sibling spans": (n) => `<p>${Array.from({ length: n }, (_, i) => `<span>${sentence(i)}</span>`).join("")}</p>`,
  "phone-only blocks": (n) => Array.from({ length: n }, (_, i) => `<div class="d-md-none"><p>${sentence(i)}</p></div>`).join(""),
  "list items": (n) => `<ul>${Array.from({ length: n }, (_, i) => `<li>${sentence(i)}</li>`).join("")}</ul>`,
  "table rows": (n) =>
    `<table>${Array.from({ length: n }, (_, i) => `<tr><td>${i}</td><td>${sentence(i)}</td></tr>`).join("")}</table>`,
  "<br> lines": (n) => `<div>${Array.from({ length: n }, (_, i) => `${sentence(i)}<br>`).join("")}</div>`,
  "cards of one make": (n) =>
    Array.from(
      { length: n },
      (_, i) => `<div class="card"><h3><a href="/p/${i}">Item ${i}</a></h3><p>${sentence(i)}</p></div>`,
    ).join(""),
  headings: (n) => Array.from({ length: n }, (_, i) => `<h2>Part ${i}</h2><p>${sentence(i)}</p>`).join(""),
  "<time> stamps": (n) =>
    Array.from({ length: n }, (_, i) => `<p><time datetime="2024-01-01">Jan 1</time> ${sentence(i)}</p>`).join(""),
  "nested divs": (n) => `${"<div>".repeat(n)}<p>${sentence(0)}</p>${"</div>".repeat(n)}`,
  "glossary terms (<dl>)": (n) =>
    `<dl>${Array.from({ length: n }, (_, i) => `<dt>Term ${i}</dt><dd>${sentence(i)}</dd>`).join("")}</dl>`,
  "spaces inside <pre>": (n) => `${SHAPES_ANCHOR(n)}<pre>start${" ".repeat(n * 20)}end</pre>`,
  "spaces in a cell's code": (n) =>
    `${SHAPES_ANCHOR(n)}<table><tr><td><pre>a${" ".repeat(n * 20)}b</pre></td><td>c</td></tr></table>`,
  "separators after a byline": (n) => `${SHAPES_ANCHOR(n)}<p class="byline">By Ann ${"| ".repeat(n * 10)}Lee</p>`,
  // Both grow: a rule that reads a wrapper's whole subtree at each level costs their product.
  "wrappers over empty blocks": (n) =>
    `${SHAPES_ANCHOR(n)}${"<div>".repeat(n / 20)}${"<div></div>".repeat(n * 5)}<p>${sentence(0)}</p>${"</div>".repeat(n / 20)}`,
  "unclosed <div>s": (n) => `${SHAPES_ANCHOR(n)}${"<div>".repeat(n * 5)}<p>${sentence(0)}</p>`,
  "lists nested over a list": (n) =>
    `${SHAPES_ANCHOR(n)}${"<ul><li>".repeat(n / 40)}<ul>${Array.from({ length: n * 2 }, (_, i) => `<li>Item ${i} <b>b</b></li>`).join("")}</ul>${"</li></ul>".repeat(n / 40)}`,
  "spans over inline runs": (n) =>
    `${SHAPES_ANCHOR(n)}<p>${"<span>".repeat(n / 20)}${"<i>a</i>".repeat(n * 5)}end${"</span>".repeat(n / 20)}</p>`,
};

const page = (body: string) =>
  `<!doctype html><html><head><title>Shapes</title></head><body><article><h1>Shapes</h1>${body}</article></body></html>`;

function timeOf(html: string): number {
  const t0 = performance.now();
  extractMainText(html, "https://example.com/shapes");
  return performance.now() - t0;
}

export function runShapes(n = 2000): void {
  const out = (s: string) => process.stdout.write(`${s}\n`);
  out(`\n## Hostile shapes: extraction time at ${n} and ${4 * n} blocks of one shape (4x linear, 16x quadratic)`);
  out("shape                    n ms      4n ms     growth");
  timeOf(page(SHAPES["paragraphs (anchor)"]?.(n) ?? "")); // warm the JIT
  let anchor = 0;
  for (const [name, make] of Object.entries(SHAPES)) {
    const small = timeOf(page(make(n)));
    const large = timeOf(page(make(4 * n)));
    const growth = large / Math.max(small, 0.001);
    if (name.includes("anchor")) anchor = growth;
    const flag = anchor > 0 && growth > 2 * anchor && growth > 8 ? "   <- grows faster than the anchor" : "";
    out(
      `${name.padEnd(24)} ${small.toFixed(0).padStart(7)}  ${large.toFixed(0).padStart(8)}  ${growth.toFixed(1).padStart(8)}x${flag}`,
    );
  }
}
