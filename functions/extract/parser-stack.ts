import { Parser } from "htmlparser2";
import { hashSeed } from "../lib/prng.ts";

/**
 * htmlparser2 (linkedom's tokenizer and tree builder's front) keeps its stack of open elements
 * with the innermost first: every start tag `unshift`s the stack and every end tag `shift`s it,
 * each a move of the whole array, and an end tag of an element not open (`indexOf`) reads all of
 * it. Time grows with the square of the depth: a page of 40,000 unclosed <div>s parsed in 0.7 s,
 * 160,000 (800 KB) in about 12 s, and a page at the body limit of them not within the extractor's
 * task timeout. Real pages reach such depths too (a template that never closes its divs).
 *
 * The same methods are replaced here with the stack kept innermost last (`push`/`pop`), and a
 * count of each open element name answers "is it open?" at once; the events they send the tree
 * builder are the same, in the same order (tested on generated pages against the originals).
 * Upstream has the same change proposed (fb55/htmlparser2#2481), not released.
 *
 * The replacement is made only over the version it was written against: the replaced methods'
 * source must hash to SOURCE_HASH, or htmlparser2's own methods stay (a new version then parses
 * as it does, only not faster). Imported for this effect by parse.ts; it changes htmlparser2's
 * Parser for the whole process.
 */

/** What the replaced methods read and write on a parser (htmlparser2's own fields, and counts). */
interface ParserState {
  htmlMode: boolean;
  recognizeSelfClosing: boolean;
  startIndex: number;
  endIndex: number;
  openTagStart: number;
  tagname: string;
  attribs: Record<string, string> | null;
  stack: string[];
  foreignContext: boolean[];
  cbs: {
    onopentagname?(name: string): void;
    onopentag?(name: string, attribs: Record<string, string>, implied: boolean): void;
    onclosetag?(name: string, implied: boolean): void;
  };
  [OPEN]?: Map<string, number>;
  isVoidElement(name: string): boolean;
  getSlice(start: number, end: number): string;
  endOpenTag(implied: boolean): void;
  onopentagend(endIndex: number): void;
  emitOpenTag(name: string): void;
  closeCurrentTag(implied: boolean): void;
  lowerCaseTagNames: boolean;
}

const OPEN = Symbol("open element counts");

/** The methods replaced, by name; `ORIGINAL` keeps htmlparser2's own (the tests compare with them). */
const REPLACED = ["emitOpenTag", "onclosetag", "onselfclosingtag", "closeCurrentTag", "onend", "reset"] as const;
type Method = (this: ParserState, ...args: never[]) => void;
const proto = Parser.prototype as unknown as Record<(typeof REPLACED)[number], Method>;
export const ORIGINAL = Object.fromEntries(REPLACED.map((name) => [name, proto[name]])) as Record<
  (typeof REPLACED)[number],
  Method
>;

/** FNV-1a of the replaced methods' source in htmlparser2 10.1.0 (see `sourceHash`). */
const SOURCE_HASH = 0x4486334e;

/** The hash of the replaced methods' source as installed. */
export function sourceHash(methods: Record<string, Method> = ORIGINAL): number {
  return hashSeed(REPLACED.map((name) => String(methods[name])).join("\n"));
}

// htmlparser2's tables (Parser.js, not exported): start tags that close open elements first, and
// the elements that open and close foreign (SVG, MathML) or HTML content inside it.
const P = new Set(["p"]);
const FORM = new Set(["input", "option", "optgroup", "select", "button", "datalist", "textarea"]);
const SECTION = new Set(["thead", "tbody"]);
const DDT = new Set(["dd", "dt"]);
const RTP = new Set(["rt", "rp"]);
const OPEN_IMPLIES_CLOSE = new Map<string, Set<string>>([
  ["tr", new Set(["tr", "th", "td"])],
  ["th", new Set(["th"])],
  ["td", new Set(["thead", "th", "td"])],
  ["body", new Set(["head", "link", "script"])],
  ["li", new Set(["li"])],
  ...["p", "h1", "h2", "h3", "h4", "h5", "h6"].map((t) => [t, P] as const),
  ...["select", "input", "output", "button", "datalist", "textarea"].map((t) => [t, FORM] as const),
  ["option", new Set(["option"])],
  ["optgroup", new Set(["optgroup", "option"])],
  ["dd", DDT],
  ["dt", DDT],
  ...[
    "address",
    "article",
    "aside",
    "blockquote",
    "details",
    "div",
    "dl",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "header",
    "hr",
    "main",
    "nav",
    "ol",
    "pre",
    "section",
    "table",
    "ul",
  ].map((t) => [t, P] as const),
  ["rt", RTP],
  ["rp", RTP],
  ["tbody", SECTION],
  ["tfoot", SECTION],
]);
const FOREIGN_CONTEXT = new Set(["math", "svg"]);
const HTML_INTEGRATION = new Set(["mi", "mo", "mn", "ms", "mtext", "annotation-xml", "foreignobject", "desc", "title"]);

function counts(p: ParserState): Map<string, number> {
  let open = p[OPEN];
  if (!open) {
    open = new Map();
    for (const name of p.stack) open.set(name, (open.get(name) ?? 0) + 1);
    p[OPEN] = open;
  }
  return open;
}

function push(p: ParserState, name: string): void {
  const open = counts(p);
  p.stack.push(name);
  open.set(name, (open.get(name) ?? 0) + 1);
}

function pop(p: ParserState): string {
  const open = counts(p);
  const name = p.stack.pop() as string;
  open.set(name, (open.get(name) as number) - 1);
  return name;
}

const last = <T>(a: T[]): T | undefined => a[a.length - 1];

const REPLACEMENT: Record<(typeof REPLACED)[number], Method> = {
  emitOpenTag(this: ParserState, name: string) {
    this.openTagStart = this.startIndex;
    this.tagname = name;
    const impliesClose = this.htmlMode && OPEN_IMPLIES_CLOSE.get(name);
    if (impliesClose) {
      while (this.stack.length > 0 && impliesClose.has(last(this.stack) as string)) {
        this.cbs.onclosetag?.(pop(this), true);
      }
    }
    if (!this.isVoidElement(name)) {
      push(this, name);
      if (this.htmlMode) {
        if (FOREIGN_CONTEXT.has(name)) this.foreignContext.push(true);
        else if (HTML_INTEGRATION.has(name)) this.foreignContext.push(false);
      }
    }
    this.cbs.onopentagname?.(name);
    if (this.cbs.onopentag) this.attribs = {};
  },

  onclosetag(this: ParserState, start: number, endIndex: number) {
    this.endIndex = endIndex;
    let name = this.getSlice(start, endIndex);
    if (this.lowerCaseTagNames) name = name.toLowerCase();
    if (this.htmlMode && (FOREIGN_CONTEXT.has(name) || HTML_INTEGRATION.has(name))) this.foreignContext.pop();
    if (!this.isVoidElement(name)) {
      if (counts(this).get(name)) {
        const pos = this.stack.lastIndexOf(name);
        while (this.stack.length > pos) {
          const element = pop(this);
          this.cbs.onclosetag?.(element, this.stack.length !== pos);
        }
      } else if (this.htmlMode && name === "p") {
        // Implicit open before close
        this.emitOpenTag("p");
        this.closeCurrentTag(true);
      }
    } else if (this.htmlMode && name === "br") {
      // Not through emitOpenTag: that would close the <br> implied.
      this.cbs.onopentagname?.("br");
      this.cbs.onopentag?.("br", {}, true);
      this.cbs.onclosetag?.("br", false);
    }
    this.startIndex = endIndex + 1;
  },

  onselfclosingtag(this: ParserState, endIndex: number) {
    this.endIndex = endIndex;
    if (this.recognizeSelfClosing || last(this.foreignContext)) {
      this.closeCurrentTag(false);
      this.startIndex = endIndex + 1;
    } else {
      this.onopentagend(endIndex);
    }
  },

  closeCurrentTag(this: ParserState, isOpenImplied: boolean) {
    const name = this.tagname;
    this.endOpenTag(isOpenImplied);
    // A self-closing tag is on the top of the stack.
    if (last(this.stack) === name) {
      this.cbs.onclosetag?.(name, !isOpenImplied);
      pop(this);
    }
  },

  onend(this: ParserState & { cbs: { onend?(): void } }) {
    if (this.cbs.onclosetag) {
      this.endIndex = this.startIndex;
      for (let i = this.stack.length - 1; i >= 0; i--) this.cbs.onclosetag(this.stack[i] as string, true);
    }
    this.cbs.onend?.();
  },

  reset(this: ParserState) {
    ORIGINAL.reset.call(this);
    // The original empties both stacks and puts the base foreign context back, in one element.
    this[OPEN] = new Map();
  },
};

/** Whether htmlparser2's methods were replaced (its version is the one this was written for). */
export const replaced = sourceHash() === SOURCE_HASH;
if (replaced) Object.assign(proto, REPLACEMENT);
