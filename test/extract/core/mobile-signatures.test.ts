import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";

const text = (html: string) => extractMainText(html, "https://forums.example.com/threads/which-watch.1051433/").text;

const post = (who: string, body: string) =>
  `<article class="message"><div class="message-user"><a href="/members/${who}.1/">${who}</a></div><div class="message-body"><div class="bbWrapper">${body}</div></div></article>`;
const page = (posts: string) =>
  `<html><head><title>Which watch?</title></head><body><main><h1>Which watch?</h1><div class="block-body">${posts}</div></main></body></html>`;
const words = [
  "The Galaxy Watch 4 is currently $199.99 at Best Buy. It does heart rate, oxygen and sleep tracking.",
  "Garmin's battery life is going to be stellar, but the watch lacks ECG and its apps are few.",
  "I wore a Pixel Watch for a year: the screen is lovely, the battery barely lasts a day and a half.",
] as const;

describe("a mobile app's line under a post", () => {
  it("drops 'Sent from my … using …' on a line of its own, and 'Sent from my iPhone' as its own block", () => {
    const t = text(
      page(
        post(
          "alice",
          `${words[0]}<br /><br />Sent from my SM-S908U using <a href="http://r.tapatalk.com/byo?rid=188">AC Forums mobile app</a>`,
        ) +
          post("bob", `${words[1]}<p>Sent from my iPhone</p>`) +
          post("carol", `${words[2]}<br>Sent from my Pixel 7 Pro using Tapatalk`),
      ),
    );
    expect(t).toContain("sleep tracking");
    expect(t).toContain("a day and a half");
    expect(t).not.toContain("Sent from my");
  });

  it("keeps a sentence of the poster's that starts so or goes on", () => {
    const t = text(
      page(
        post("alice", words[0]) +
          post("bob", `${words[1]}<br>Sent from my phone while waiting for the bus so excuse the typos`) +
          post("carol", `Sent from my phone, sorry for typos: ${words[2]}`),
      ),
    );
    expect(t).toContain("Sent from my phone while waiting for the bus");
    expect(t).toContain("Sent from my phone, sorry for typos");
  });
});
