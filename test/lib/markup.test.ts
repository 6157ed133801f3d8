import { parseHTML } from "linkedom";
import { describe, expect, it } from "vitest";
import { countStartTags, elementSpans, removeBetween, removeTags, replaceTags } from "../../functions/lib/markup.ts";

/** Deterministic strings of markup-ish characters (a tiny LCG: the same cases every run). */
function* samples(count: number): Generator<string> {
  let x = 20261130;
  const alphabet = [
    "<",
    ">",
    "a",
    " ",
    "/",
    "<script>",
    "</script>",
    "<style>",
    "</STYLE>",
    "<>",
    "x",
    "</script >",
    "<body",
    "<!doctype",
    "<!--",
    "-->",
    "-",
    "<HEAD>",
    "<p",
    "<Z>",
    "<@",
    "<[",
    "<é",
  ];
  for (let i = 0; i < count; i++) {
    let s = "";
    const len = i % 40;
    for (let j = 0; j < len; j++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      s += alphabet[x % alphabet.length];
    }
    yield s;
  }
}

/** The regex form elementSpans replaces, for comparison. */
const regexSpans = (s: string): [number, number][] =>
  [...s.matchAll(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi)].map((m) => [m.index, m.index + m[0].length]);

describe("markup passes in one reading (lib/markup.ts)", () => {
  it("replaceTags gives what /<[^>]*>/g and /<[^>]+>/g give, on 3,000 generated strings", () => {
    for (const s of samples(3000)) {
      expect(replaceTags(s, " "), s).toBe(s.replace(/<[^>]*>/g, " "));
      expect(replaceTags(s, "", true), s).toBe(s.replace(/<[^>]+>/g, ""));
    }
  });

  it("elementSpans gives the lazy regex's matches, on 3,000 generated strings", () => {
    for (const s of samples(3000)) {
      const spans = elementSpans(s, /<(script|style)\b/gi, (name) => new RegExp(`</${name}\\s*>`, "gi"));
      expect(spans, s).toEqual(regexSpans(s));
    }
  });

  it("removeTags and removeBetween give what their regexes give, on 3,000 generated strings", () => {
    const page = /<(?:\/?(?:body|html|head)(?=[\s>])|!doctype)/gi;
    for (const s of samples(3000)) {
      const want = s.replace(/<\/?(?:body|html|head)(?:\s[^>]*)?>/gi, "").replace(/<!doctype[^>]*>/gi, "");
      // The regex form ran twice, so a doctype joined by the first pass could be removed by the second: compare on one kind.
      if (!/<!doctype/i.test(s) || !/<\/?(?:body|html|head)/i.test(s)) expect(removeTags(s, page), s).toBe(want);
      expect(removeBetween(s, "<!--", "-->"), s).toBe(s.replace(/<!--[\s\S]*?-->/g, ""));
    }
  });

  it("a million unclosed '<' or 300,000 unclosed <script>s are one pass (the regex forms ran for minutes)", () => {
    const lts = `<b>x</b>${"< ".repeat(1_000_000)}`;
    expect(replaceTags(lts, "").slice(0, 4)).toBe("x< <");
    const scripts = `<script>a</script>${"<script>y".repeat(300_000)}`;
    expect(elementSpans(scripts, /<(script|style)\b/gi, (name) => new RegExp(`</${name}\\s*>`, "gi"))).toEqual([[0, 18]]);
  });

  it("countStartTags counts '<' before an ASCII letter, at least the elements the parser builds", () => {
    let elements = 0;
    for (const s of samples(3000)) {
      expect(countStartTags(s), s).toBe((s.match(/<[a-z]/gi) ?? []).length);
      const page = `<html><head></head><body>${s}</body></html>`;
      const built = parseHTML(page).document.querySelectorAll("*").length;
      expect(countStartTags(page), s).toBeGreaterThanOrEqual(built);
      elements += built;
    }
    expect(elements).toBeGreaterThan(3000 * 4);
    expect(countStartTags(`${"<br>".repeat(1_000_000)}<`)).toBe(1_000_000);
  });
});
