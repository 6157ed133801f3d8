import { CDATA_SECTION_NODE, ELEMENT_NODE, firstDescendant, TEXT_NODE } from "./dom.ts";

// "language-js" (Prism, highlight.js, CommonMark), "lang-js", "highlight-source-js" (GitHub),
// "highlight-js", "sourceCode-js", and "brush:js" (SyntaxHighlighter; also "brush: js" below)
const LANG_CLASS = /^(?:language|lang|highlight-source|highlight|sourcecode)-([\w+#.-]+)$|^brush:([\w+#.-]+)$/i;
const LANG_NAME = /^[\w+#.-]+$/;
const NOT_LANG = new Set(["none", "nohighlight", "rouge"]);

function languageOf(el: Element | null): string | null {
  if (!el) return null;
  const data = el.getAttribute("data-lang") ?? el.getAttribute("data-language");
  if (data && LANG_NAME.test(data)) return data.toLowerCase();
  const cls = el.getAttribute("class");
  if (!cls) return null;
  const tokens = cls.split(/[\s;]+/);
  for (const t of tokens) {
    const m = LANG_CLASS.exec(t);
    const lang = (m?.[1] ?? m?.[2])?.toLowerCase();
    if (lang && !NOT_LANG.has(lang)) return lang;
  }
  // "brush: js" (SyntaxHighlighter) and "sourceCode python" (pandoc) name the language in the next token
  const i = tokens.findIndex((t) => t === "brush:" || t.toLowerCase() === "sourcecode");
  const next = i >= 0 ? tokens[i + 1] : undefined;
  return next && LANG_NAME.test(next) ? next.toLowerCase() : null;
}

/** The language of a `<pre>` block from its `<code>` child, itself, or a highlighter wrapper around it. */
export function codeLanguage(pre: Element): string | null {
  const code = firstDescendant(pre, "code");
  return (
    languageOf(code) ?? languageOf(pre) ?? languageOf(pre.parentElement) ?? languageOf(pre.parentElement?.parentElement ?? null)
  );
}

/** The text of a `<pre>` block: verbatim, `<br>` as newlines, one leading newline dropped (as HTML parsing does). */
export function preText(pre: Element): string {
  let out = "";
  const walk = (node: Node): void => {
    for (let n = node.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === TEXT_NODE || n.nodeType === CDATA_SECTION_NODE) out += n.nodeValue ?? "";
      else if (n.nodeType === ELEMENT_NODE) {
        const el = n as Element;
        const tag = el.localName;
        if (tag === "br") out += "\n";
        else if (tag === "script" || tag === "style" || tag === "template") continue;
        else {
          walk(el);
          // line-per-element highlighters (<div class="line">) need their newlines back
          if ((tag === "div" || tag === "p" || tag === "li") && !out.endsWith("\n")) out += "\n";
        }
      }
    }
  };
  walk(pre);
  if (out.startsWith("\r\n")) out = out.slice(2);
  else if (out.startsWith("\n")) out = out.slice(1);
  // trimEnd, not /\s+$/: that regex is quadratic in a long run of spaces inside the block.
  return out.replace(/\r\n?/g, "\n").trimEnd();
}
