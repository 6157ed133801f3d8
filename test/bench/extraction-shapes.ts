/**
 * Hostile page shapes (`npm run bench -- extraction --only shapes`): how extraction time grows with
 * the number of blocks of one shape. Each shape is timed at n and 4n blocks; time that grows 4x is
 * linear, 16x quadratic. Plain paragraphs are the anchor, timed in the same run: the machine's speed
 * drifts, the growth ratios hold. Two rules were quadratic before this section existed (10,000
 * sibling spans took 9 s in the echo rule, 3,000 phone-only blocks 12 s in the phone-copy rule);
 * a growth well above the anchor's is the sign of another.
 */
import { extractMainText } from "../../functions/extract/extract.ts";

const sentence = (i: number) => `Block number ${i} says something of its own, word ${i * 7} and word ${i * 13}.`;

/** Each shape's body for `n` blocks. */
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
