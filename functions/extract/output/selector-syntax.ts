import { parseHTML } from "linkedom";

// Selector syntax checks for spec 4.6 rule 6 (invalid syntax → 422). linkedom (css-select) throws on
// most malformed selectors but accepts some that browsers reject: empty entries, a leading or
// trailing combinator ("> p", "p >"), an unterminated string ("\"abc"), identifiers that start with a
// digit ("123", "#1st", ".2col") and stray characters ("@media"). Those are caught by the scan below.
// Valid syntax that css-select cannot evaluate (pseudo-elements, namespaces) is accepted: such an
// entry simply matches nothing, as `p::before` does in a browser's querySelectorAll.

const UNSUPPORTED = /pseudo-elements are not supported|namespaced .* not yet supported/i;
const PSEUDO_ELEMENTS = new Set([
  "before",
  "after",
  "first-line",
  "first-letter",
  "marker",
  "placeholder",
  "selection",
  "backdrop",
  "file-selector-button",
  "cue",
  "part",
  "slotted",
  "highlight",
  "target-text",
  "grammar-error",
  "spelling-error",
  "view-transition",
]);
const ALLOWED_TOP_LEVEL = /[\w\-\\*.#:[\]()>+~,|'"\s&\u0080-\uffff]/;
const COMBINATOR = /[>+~]/;

let probe: Document | null = null;

/** Runs the selector through linkedom; returns false when it throws for a syntax reason. */
function linkedomAccepts(selector: string): boolean {
  probe ??= parseHTML("<html><head></head><body><p></p></body></html>").document as Document;
  try {
    probe.querySelectorAll(selector);
    return true;
  } catch (error) {
    if (!UNSUPPORTED.test(String((error as Error).message))) return false;
    const m = /::([\w-]+)/.exec(selector);
    return m === null || PSEUDO_ELEMENTS.has(m[1] ?? "") || /^-(webkit|moz)-/.test(m[1] ?? "");
  }
}

/** True when `s[i]` can start an identifier (CSS Syntax 3, 4.3.9). */
function startsIdent(s: string, i: number): boolean {
  const c = s[i];
  if (c === undefined) return false;
  if (c === "-") {
    const d = s[i + 1];
    return d !== undefined && (d === "-" || /[A-Za-z_\u0080-\uffff]/.test(d) || (d === "\\" && s[i + 2] !== undefined));
  }
  if (c === "\\") return s[i + 1] !== undefined && s[i + 1] !== "\n";
  return /[A-Za-z_\u0080-\uffff]/.test(c);
}

/** The structural checks css-select skips: balance, strings, combinators at the edges, identifiers. */
function scanOk(selector: string): boolean {
  const s = selector.trim();
  if (s === "") return false;
  let brackets = 0;
  let parens = 0;
  let quote: string | null = null;
  let compoundStart = true; // at the start of a compound selector (after start, comma, combinator or space)
  let lastSignificant = ""; // last non-space character at depth 0
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = null;
      else if (c === "\n") return false;
      continue;
    }
    if (c === "\\") {
      if (i + 1 >= s.length) return false;
      // a hex escape is up to six hex digits and one optional space ("\\31 23" is "123")
      const hex = /^[0-9a-fA-F]{1,6}\s?/.exec(s.slice(i + 1, i + 8));
      i += hex ? hex[0].length : 1;
      compoundStart = false;
      lastSignificant = "x";
      continue;
    }
    if (c === '"' || c === "'") {
      if (brackets === 0 && parens === 0) return false; // strings only appear in [attr="v"] or functions
      quote = c;
      continue;
    }
    if (c === "[") brackets++;
    else if (c === "]" && --brackets < 0) return false;
    else if (c === "(") parens++;
    else if (c === ")" && --parens < 0) return false;
    if (brackets > 0 || parens > 0 || c === "]" || c === ")") {
      compoundStart = false;
      lastSignificant = c;
      continue;
    }
    if (!ALLOWED_TOP_LEVEL.test(c)) return false;
    if (/\s/.test(c)) {
      compoundStart = true;
      continue;
    }
    if (COMBINATOR.test(c) || c === ",") {
      if (lastSignificant === "" || COMBINATOR.test(lastSignificant) || lastSignificant === ",") return false;
      compoundStart = true;
      lastSignificant = c;
      continue;
    }
    if (compoundStart && /[\d-]/.test(c) && !startsIdent(s, i)) return false; // "123", "-1a" are not tag names
    if ((c === "#" || c === ".") && !startsIdent(s, i + 1)) return false; // "#1st", ".2col", "#"
    compoundStart = false;
    lastSignificant = c;
  }
  if (quote || brackets !== 0 || parens !== 0) return false;
  return !(COMBINATOR.test(lastSignificant) || lastSignificant === ",");
}

/** Whether one selector is syntactically valid CSS that the service can apply. */
export function isValidSelector(selector: string): boolean {
  return scanOk(selector) && linkedomAccepts(selector);
}

/** The entries of `list` that are not valid CSS selectors, in order (spec 4.6 rule 6: a 422 names them). */
export function findInvalidSelectors(list: string[]): string[] {
  return list.filter((s) => !isValidSelector(s));
}

/** CSS.escape (CSSOM 2.1.1): an identifier made safe to use after "#" or ".". */
export function cssEscape(value: string): string {
  let out = "";
  const first = value.charCodeAt(0);
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    const ch = value[i] as string;
    if (c === 0) out += "\uFFFD";
    else if (
      (c >= 0x1 && c <= 0x1f) ||
      c === 0x7f ||
      (i === 0 && c >= 0x30 && c <= 0x39) ||
      (i === 1 && c >= 0x30 && c <= 0x39 && first === 0x2d)
    ) {
      out += `\\${c.toString(16)} `;
    } else if (i === 0 && value.length === 1 && c === 0x2d) out += `\\${ch}`;
    else if (
      c >= 0x80 ||
      c === 0x2d ||
      c === 0x5f ||
      (c >= 0x30 && c <= 0x39) ||
      (c >= 0x41 && c <= 0x5a) ||
      (c >= 0x61 && c <= 0x7a)
    )
      out += ch;
    else out += `\\${ch}`;
  }
  return out;
}
