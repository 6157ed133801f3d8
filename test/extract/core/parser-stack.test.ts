import { Parser } from "htmlparser2";
import { describe, expect, it } from "vitest";
import { extractHtml } from "../../../functions/extract/extract.ts";
import { parseDocument } from "../../../functions/extract/parse.ts";
import { ORIGINAL, replaced, sourceHash } from "../../../functions/extract/parser-stack.ts";
import { mulberry32 } from "../../helpers/prng.ts";

/** htmlparser2's Parser with its own stack methods (innermost first, unshift/shift), to compare with. */
class OriginalParser extends Parser {}
Object.assign(OriginalParser.prototype, ORIGINAL);

type Options = ConstructorParameters<typeof Parser>[1];

/** Every event a parser sends its handler, in order, as one string per event. */
function events(P: typeof Parser, html: string, options: Options = {}, chunks = 1): string[] {
  const out: string[] = [];
  const log =
    (kind: string) =>
    (...args: unknown[]) =>
      out.push(`${kind} ${JSON.stringify(args)}`);
  const parser = new P(
    {
      onopentagname: log("opentagname"),
      onopentag: log("opentag"),
      onclosetag: log("closetag"),
      ontext: log("text"),
      oncomment: log("comment"),
      oncdatastart: log("cdatastart"),
      oncdataend: log("cdataend"),
      onprocessinginstruction: log("pi"),
      onend: log("end"),
    },
    options,
  );
  const size = Math.ceil(html.length / chunks);
  for (let i = 0; i < html.length; i += size) parser.write(html.slice(i, i + size));
  parser.end();
  return out;
}

/** Every name htmlparser2's tables know (implied closes, void, foreign and integration elements), and some they do not. */
const NAMES = [
  ..."tr th td thead tbody tfoot body head link script li p h1 h2 h3 h4 h5 h6 select input output button datalist textarea option optgroup dd dt address article aside blockquote details div dl fieldset figcaption figure footer form header hr main nav ol pre section table ul rt rp".split(
    " ",
  ),
  ..."area base basefont br col command embed frame img isindex keygen meta param source track wbr".split(" "),
  ..."svg math mi mo mn ms mtext annotation-xml foreignObject desc title".split(" "),
  ..."span b a em html custom-el".split(" "),
];

function page(next: () => number, tokens: number): string {
  const pick = <T>(a: T[]) => a[Math.floor(next() * a.length)];
  let html = "";
  for (let i = 0; i < tokens; i++) {
    const r = next();
    const name = pick(NAMES);
    if (r < 0.4) html += `<${name}${next() < 0.3 ? ' class="x"' : ""}>`;
    else if (r < 0.7) html += `</${name}>`;
    else if (r < 0.8) html += `<${name}/>`;
    else if (r < 0.9) html += "text ";
    else html += pick(["<!-- c -->", "<![CDATA[d]]>", "</p>", "</br>", "<?xml x?>"]);
  }
  return html;
}

describe("htmlparser2's open-element stack kept innermost last (functions/extract/parser-stack.ts)", () => {
  it("is in use over the installed htmlparser2", () => {
    expect(sourceHash()).toBe(0x4486334e);
    expect(replaced).toBe(true);
    expect((Parser.prototype as unknown as typeof ORIGINAL).emitOpenTag).not.toBe(ORIGINAL.emitOpenTag);
  });

  it("sends the same events as htmlparser2's own methods for every pair of the names its tables know", () => {
    let pages = 0;
    for (const a of NAMES)
      for (const b of NAMES) {
        const html = `<${a}><${b}>t</${b}>u</${a}>v<${a}><${b}/><${b}>w</${a}>x</${b}>`;
        for (const options of [{}, { xmlMode: true }] as Options[]) {
          expect(events(Parser, html, options), html).toEqual(events(OriginalParser, html, options));
          pages++;
        }
      }
    expect(pages).toBe(NAMES.length * NAMES.length * 2);
  });

  it("sends the same events on 4,000 generated pages (unclosed, stray, self-closing and foreign tags), whole and in chunks", () => {
    const next = mulberry32(20261130);
    for (let i = 0; i < 4000; i++) {
      const html = page(next, 10 + Math.floor(next() * 120));
      const options: Options = i % 4 === 3 ? { xmlMode: true } : i % 4 === 2 ? { recognizeSelfClosing: true } : {};
      const chunks = 1 + (i % 3);
      expect(events(Parser, html, options, chunks), `page ${i}: ${html}`).toEqual(events(OriginalParser, html, options, chunks));
    }
  });

  it("starts from empty stacks when a parser is reset and used again", () => {
    const twice = (P: typeof Parser) => {
      const out: string[] = [];
      const parser = new P({ onclosetag: (name, implied) => out.push(`${name} ${implied}`) });
      parser.parseComplete("<div><span><svg><g/>");
      parser.parseComplete("<div><p>again</div></p><svg><g/></svg>");
      return out;
    };
    expect(twice(Parser)).toEqual(twice(OriginalParser));
    expect(twice(Parser)).toEqual([
      "g true",
      "svg true",
      "span true",
      "div true",
      "p true",
      "div false",
      "p false",
      "g true",
      "svg false",
    ]);
  });

  it("parses pages 400,000 tags deep, or with 400,000 stray end tags under a deep stack, in linear time", () => {
    // Each took minutes with the stack kept innermost first (0.7 s at 40,000 unclosed <div>s, 16x that at 4x).
    const deep = parseDocument(`<html><body>${"<b>".repeat(400_000)}end</body></html>`);
    expect(deep.body.textContent).toBe("end");
    const stray = parseDocument(`<html><body><p>start</p>${"<span>".repeat(20_000)}${"</em>".repeat(400_000)}<i>tail</i>`);
    expect(stray.body.textContent).toBe("starttail");
    const svg = parseDocument(`<html><body>${"<svg>".repeat(200_000)}<path/>end`);
    expect(svg.body.textContent).toBe("end");
  });

  it("reads the page beneath 40,000 unclosed <b>s (markdown)", () => {
    // What lies past MAX_DEPTH is flattened (nesting.ts); the rules that read a wrapper's chain of
    // children cost up to MAX_DEPTH times the page there, so this reading check stays small.
    const html = `<html><head><title>Deep</title></head><body><article><h1>Deep</h1><p>The opening paragraph of a page whose template never closes its bold tags.</p>${"<b>".repeat(40_000)}<p>The innermost paragraph is still read.</p>`;
    const out = extractHtml(html, { url: "https://example.com/deep", format: "markdown", links: true, imageLinks: false });
    expect(out.ok && String(out.page.text)).toContain("The innermost paragraph is still read.");
  });
});
