import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";

const text = (html: string, url: string) => extractMainText(html, url).text;

const albums = [
  ["Kind of Blue", "Miles Davis", "4.6"],
  ["A Love Supreme", "John Coltrane", "4.5"],
  ["Blue Train", "John Coltrane", "4.4"],
  ["Mingus Ah Um", "Charles Mingus", "4.5"],
  ["Time Out", "Dave Brubeck Quartet", "4.3"],
  ["Moanin'", "Art Blakey and the Jazz Messengers", "4.4"],
];

const page = (rows: string) =>
  `<html><body><main><h1>Essential jazz albums</h1><p>Albums chosen by our readers, ranked by their votes this year.</p><table class="ranked">${rows}</table></main></body></html>`;

/** A ranked entry: title, artist, its average rating and, with `input`, a widget to rate it. */
const row = ([title, artist, avg]: string[], i: number, input: boolean) => `<tr><td class="rank">${i + 1}</td>
  <td><a class="title" href="/album/${i}">${title}</a> by <a href="/artist/${i}">${artist}</a>
  <div class="avg">${avg} out of 5 stars — ${(i + 3) * 1234} ratings</div>
  ${
    input
      ? `<div class="rate-box"><div class="prompt">Rate this album</div><div class="reset">Clear rating</div>
  <div class="stars">${[1, 2, 3, 4, 5].map((n) => `<a class="star" href="#">${n} of 5 stars</a>`).join("")}</div></div>`
      : ""
  }</td></tr>`;

describe("star-rating inputs", () => {
  it("a rating widget on every entry goes, with its prompt; the entries and their ratings stay", () => {
    const t = text(page(albums.map((a, i) => row(a, i, true)).join("")), "https://music.example.com/lists/essential-jazz");
    for (const [title, artist, avg] of albums) {
      expect(t).toContain(title);
      expect(t).toContain(artist);
      expect(t).toContain(`${avg} out of 5 stars`);
    }
    expect(t).not.toContain("of 5 stars 2 of 5 stars");
    expect(t).not.toMatch(/\b1 of 5 stars/);
    expect(t).not.toContain("Rate this album");
    expect(t).not.toContain("Clear rating");
  });

  it("keeps shown ratings, review histograms and a list of steps that say more", () => {
    const bar = (n: number) => `<span class="label">${n} star${n > 1 ? "s" : ""}</span><span class="count">${n * 17}</span>`;
    // One counting down, one counting up: the counts beside the labels say it is no input.
    const histogram = `${[5, 4, 3, 2, 1].map(bar).join("")}</div><div class="histogram">${[1, 2, 3, 4, 5].map(bar).join("")}`;
    const steps = ["1 star", "2 stars", "3 stars"]
      .map((s) => `<li>${s} means the dish was ${s === "1 star" ? "poor" : "fine"}</li>`)
      .join("");
    const html = page(
      `${albums.map((a, i) => row(a, i, false)).join("")}<tr><td colspan="2"><div class="histogram">${histogram}</div><ul>${steps}</ul></td></tr>`,
    );
    const t = text(html, "https://music.example.com/lists/essential-jazz");
    for (const [title, , avg] of albums) {
      expect(t).toContain(title);
      expect(t).toContain(`${avg} out of 5 stars`);
    }
    for (const n of [5, 4, 3, 2]) expect(t).toContain(`${n} stars`);
    expect(t).toContain("1 star");
    expect(t).toContain("85");
    expect(t).toContain("2 stars means the dish was fine");
  });
});
