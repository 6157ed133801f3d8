import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";

const text = (html: string, url: string) => extractMainText(html, url).text;
const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;

const shelves = [
  "Oakline Bookcase, white",
  "Fenwick Shelf unit, black",
  "Marlow Wall shelf, pine",
  "Hollis Cube storage, oak",
  "Tarn Ladder shelf, ash",
];

/** A shop card with a flag over its picture: the same "Best seller" on most cards. */
const card = (name: string, i: number, flag: string) => `<div class="product-card"><div class="image">
  ${flag ? `<p class="product-badge product-badge--top">${flag}</p>` : ""}<img src="/i/${i}.jpg" alt=""></div>
  <h3><a href="/p/${i}">${name}</a></h3><span class="price">$${79 + i * 20}.00</span></div>`;

const page = (cards: string) =>
  `<html><body><main><h1>Shelving</h1><div class="product-grid">${cards}</div></main></body></html>`;

describe("badges on the cards of a grid", () => {
  it("a flag three or more cards share ('Best seller') goes; the names and prices stay", () => {
    const flags = ["Best seller", "Best seller", "", "Best seller", "Best seller"];
    const t = text(page(shelves.map((s, i) => card(s, i, flags[i] ?? "")).join("")), "https://home.example.com/cat/shelving/");
    for (const s of shelves) expect(t).toContain(s);
    expect(t).toContain("$79.00");
    expect(t).not.toContain("Best seller");
  });

  it("keeps flags that each say something of their own item, and flags on a reference page", () => {
    const flags = ["Clearance", "Limited run", "", "Last one", ""];
    const t = text(page(shelves.map((s, i) => card(s, i, flags[i] ?? "")).join("")), "https://home.example.com/cat/shelving/");
    for (const f of ["Clearance", "Limited run", "Last one"]) expect(t).toContain(f);
    const props = ["bufferedAmount", "binaryType", "extensions", "protocol"]
      .map(
        (p) =>
          `<dt><code>Socket.${p}</code> <span class="badge inline readonly">Read only</span></dt><dd>What the socket reports as its ${p}, set when the connection opens and read by the page.</dd>`,
      )
      .join("");
    const ref = `<html><body><main><h1>Socket</h1><p>The Socket interface lets a page hold a two-way connection open to a server and send messages over it.</p><h2>Instance properties</h2><dl>${props}</dl></main></body></html>`;
    expect(count(text(ref, "https://docs.example.com/en-US/docs/Web/API/Socket"), "Read only")).toBe(4);
  });
});
