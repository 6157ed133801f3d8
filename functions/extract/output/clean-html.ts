import { codeLanguage } from "./code.ts";
import { absoluteUrl, CDATA_SECTION_NODE, documentBase, ELEMENT_NODE, firstDescendant, isHidden, TEXT_NODE } from "./dom.ts";
import { imageUrl } from "./images.ts";
import { SKIP_TAGS } from "./tags.ts";

/** Elements the cleaned HTML leaves out beyond the shared skip list: `<picture>` sources (the img keeps the best URL). */
const DROP_TAGS: ReadonlySet<string> = new Set([...SKIP_TAGS, "source", "track", "base", "param"]);

const VOID_TAGS: ReadonlySet<string> = new Set([
  "area",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "source",
  "track",
  "wbr",
]);

const GLOBAL_ATTRS = ["title", "lang", "dir"];

/** Attributes kept per element; everything else (class, id, style, on*, data-*, aria-*) is dropped. */
const ALLOWED_ATTRS: Readonly<Record<string, readonly string[]>> = {
  a: ["href"],
  img: ["alt", "width", "height"],
  td: ["colspan", "rowspan", "scope"],
  th: ["colspan", "rowspan", "scope", "abbr"],
  col: ["span"],
  colgroup: ["span"],
  ol: ["start", "reversed", "type"],
  li: ["value"],
  time: ["datetime"],
  data: ["value"],
  blockquote: ["cite"],
  q: ["cite"],
  del: ["cite", "datetime"],
  ins: ["cite", "datetime"],
  details: ["open"],
  area: ["href", "alt"],
};

const URL_ATTRS: ReadonlySet<string> = new Set(["href", "cite"]);

function escapeText(text: string): string {
  return text.replace(/[&<>]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;"));
}

function escapeAttr(value: string): string {
  return value.replace(/[&"]/g, (c) => (c === "&" ? "&amp;" : "&quot;"));
}

/**
 * The HTML of `root` with scripts, styles, embedded documents, form controls, hidden elements and
 * comments removed; attributes cut to an allow-list (no class, id, style or event handlers);
 * links and image URLs absolute; `javascript:` URLs dropped; images without an http(s) URL
 * (`data:` images) removed. Code blocks keep their language as `class="language-x"`.
 * Serialised in one walk without touching the document.
 */
export function toCleanHtml(root: Element, baseUrl: string): string {
  const base = documentBase(root, baseUrl);
  const out: string[] = [];
  let preDepth = 0;

  const walk = (el: Element, language: string | null): void => {
    const tag = el.localName;
    let attrs = "";
    if (tag === "img") {
      const src = imageUrl(el, base);
      if (src === null) return;
      attrs += ` src="${escapeAttr(src)}"`;
    }
    for (const name of [...GLOBAL_ATTRS, ...(ALLOWED_ATTRS[tag] ?? [])]) {
      let value = el.getAttribute(name);
      if (value === null) continue;
      if (URL_ATTRS.has(name)) {
        value = absoluteUrl(value, base);
        if (value === null) continue;
      }
      attrs += value === "" ? ` ${name}` : ` ${name}="${escapeAttr(value)}"`;
    }
    // the language goes on the <code> inside a <pre>, or on the <pre> when it has none
    let childLanguage = language;
    if (tag === "pre") {
      const lang = codeLanguage(el);
      if (lang && !firstDescendant(el, "code")) attrs += ` class="language-${escapeAttr(lang)}"`;
      childLanguage = lang;
    } else if (tag === "code" && language) {
      attrs += ` class="language-${escapeAttr(language)}"`;
      childLanguage = null;
    }
    out.push(`<${tag}${attrs}>`);
    if (VOID_TAGS.has(tag)) return;
    if (tag === "pre") preDepth++;
    children(el, childLanguage);
    if (tag === "pre") preDepth--;
    out.push(`</${tag}>`);
  };

  const children = (node: Node, language: string | null): void => {
    for (let n = node.firstChild; n; n = n.nextSibling) {
      const type = n.nodeType;
      if (type === TEXT_NODE || type === CDATA_SECTION_NODE) {
        const text = n.nodeValue ?? "";
        // whitespace between blocks shrinks to one character; text inside <pre> is verbatim
        if (preDepth === 0 && text.trim() === "") {
          if (text !== "") out.push(text.includes("\n") ? "\n" : " ");
        } else out.push(escapeText(text));
      } else if (type === ELEMENT_NODE) {
        const el = n as Element;
        if (!DROP_TAGS.has(el.localName) && !isHidden(el)) walk(el, language);
      }
    }
  };

  if (DROP_TAGS.has(root.localName)) return "";
  walk(root, null);
  return out.join("");
}
