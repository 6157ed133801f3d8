import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";

const text = (html: string, url: string) => extractMainText(html, url).text;

const excerpt = (i: number) =>
  `The group behind hotel number ${i} said on Monday that the property, closed for a year of works, reopens with new rooms, a spa and a rooftop bar, and that bookings are open.`;

/** Entries whose heading and excerpt are both links, inside a wrapper that starts no block. */
const entries = (wrapper: string) =>
  `<${wrapper}>${Array.from(
    { length: 6 },
    (_, i) => `<article class="list-item"><div class="list-details"><div class="type">News</div>
      <h2 class="title"><a href="/news/${i}">Hotel number ${i} reopens after renovation</a></h2>
      <p><a href="/news/${i}">${excerpt(i)}</a></p><div class="meta">Staff writer</div></div></article>`,
  ).join("")}</${wrapper}>`;

/** A strip of linked one-line notices beside the entries. */
const strip = `<div class="strip"><div class="strip-grid">${Array.from(
  { length: 8 },
  (_, i) => `<div><a href="/people/${i}">Person number ${i} has been appointed general manager</a></div>`,
).join("")}</div></div>`;

const page = (wrapper: string) =>
  `<html><head><title>Latest news</title></head><body><main><div class="content"><div>${entries(wrapper)}${strip}</div></div></main></body></html>`;

describe("grid entries inside an inline wrapper", () => {
  it("counts entries set inside an unknown inline tag as the grid they are", () => {
    const t = text(page("list"), "https://example.com/list/latest-news.html");
    for (let i = 0; i < 6; i++) expect(t).toContain(`Hotel number ${i} reopens after renovation`);
    expect(t).toContain("bookings are open");
  });

  it("still reads one-word links inside an inline wrapper as a menu, not a grid", () => {
    const menu = `<span class="menu">${["News", "Sport", "Travel", "Money", "Culture", "Weather"]
      .map((w) => `<div class="item"><a href="/${w.toLowerCase()}">${w}</a></div>`)
      .join("")}</span>`;
    const story = `<div class="story"><p>${excerpt(1)} ${excerpt(2)}</p><p>${excerpt(3)} ${excerpt(4)}</p></div>`;
    const html = `<html><head><title>Story</title></head><body><main><div class="page">${menu}${story}</div></main></body></html>`;
    const t = text(html, "https://example.com/list/story.html");
    expect(t).toContain("bookings are open");
    expect(t).not.toContain("Weather");
  });
});
