/**
 * Browser Use's page state, for the agent benchmark's comparison: its DOM extraction script
 * (browser-use 0.5.11, `browser_use/dom/dom_tree/index.js`, MIT; read from the path in
 * BROWSER_USE_DOM_JS, never stored in this repository) run in the page, its output rebuilt into a
 * tree as `DomService._construct_dom_tree` does, and serialized as 0.5.x shows it to the model:
 * `DOMElementNode.clickable_elements_to_string` (browser_use/dom/views.py) inside the page part of
 * `AgentMessagePrompt._get_browser_state_description` (browser_use/agent/prompts.py).
 */
import type { Page } from "puppeteer-core";

/** `DEFAULT_INCLUDE_ATTRIBUTES` of browser_use/dom/views.py (0.5.11), the Agent's default. */
export const DEFAULT_INCLUDE_ATTRIBUTES = [
  "title",
  "type",
  "checked",
  "name",
  "role",
  "value",
  "placeholder",
  "data-date-format",
  "alt",
  "aria-label",
  "aria-expanded",
  "data-state",
  "aria-checked",
];

/** The script's arguments (`DomService._build_dom_tree`). */
export interface BrowserUseArgs {
  doHighlightElements: boolean;
  focusHighlightIndex: number;
  viewportExpansion: number;
  debugMode: boolean;
}

interface JsText {
  type: "TEXT_NODE";
  text: string;
  isVisible: boolean;
}
interface JsElement {
  tagName: string;
  xpath: string;
  attributes?: Record<string, string | null>;
  children?: string[];
  isVisible?: boolean;
  isTopElement?: boolean;
  highlightIndex?: number;
}
type JsNode = JsText | JsElement;

interface BuText {
  kind: "text";
  text: string;
  parent: BuElement | null;
}
interface BuElement {
  kind: "element";
  tag: string;
  xpath: string;
  attributes: Record<string, string | null>;
  children: BuNode[];
  visible: boolean;
  top: boolean;
  highlight: number | null;
  parent: BuElement | null;
}
type BuNode = BuText | BuElement;

export interface BrowserUseState {
  /** What the model reads about the page (see the module comment). */
  text: string;
  /** Elements given a highlight index, with the xpath the script reports (relative to their document or shadow root). */
  highlighted: { index: number; tag: string; xpath: string }[];
}

/** `DomService._construct_dom_tree`: nodes come bottom-up (children before parents), linked in key order. */
function buildTree(map: Record<string, JsNode>, rootId: string): BuElement {
  const nodes = new Map<string, BuNode>();
  const ids = Object.keys(map).sort((a, b) => Number(a) - Number(b));
  for (const id of ids) {
    const data = map[id];
    if (!data) continue;
    if ("type" in data && data.type === "TEXT_NODE") {
      nodes.set(id, { kind: "text", text: data.text, parent: null });
      continue;
    }
    const el = data as JsElement;
    const node: BuElement = {
      kind: "element",
      tag: el.tagName,
      xpath: el.xpath,
      attributes: el.attributes ?? {},
      children: [],
      visible: el.isVisible ?? false,
      top: el.isTopElement ?? false,
      highlight: el.highlightIndex ?? null,
      parent: null,
    };
    nodes.set(id, node);
    for (const childId of el.children ?? []) {
      const child = nodes.get(childId);
      if (!child) continue;
      child.parent = node;
      node.children.push(child);
    }
  }
  const root = nodes.get(String(rootId));
  if (root?.kind !== "element") throw new Error("browser-use: no root element");
  return root;
}

/** Python's `len(s) > n: s[:n] + '...'` (code points, as Python counts). */
const capTextLength = (s: string, n: number) => {
  const cps = Array.from(s);
  return cps.length > n ? `${cps.slice(0, n).join("")}...` : s;
};
const pyStrip = (s: string) => s.replace(/^\s+|\s+$/g, "");

/** `get_all_text_till_next_clickable_element`. */
function textTillNextClickable(self: BuElement): string {
  const parts: string[] = [];
  const collect = (node: BuNode) => {
    if (node.kind === "element" && node !== self && node.highlight !== null) return;
    if (node.kind === "text") parts.push(node.text);
    else for (const c of node.children) collect(c);
  };
  collect(self);
  return pyStrip(parts.join("\n"));
}

const hasHighlightedAncestor = (node: BuText) => {
  for (let p = node.parent; p; p = p.parent) if (p.highlight !== null) return true;
  return false;
};

/** `DOMElementNode.clickable_elements_to_string` (browser-use 0.5.11), line for line. */
export function clickableElementsToString(root: BuElement, include: string[] = DEFAULT_INCLUDE_ATTRIBUTES): string {
  const lines: string[] = [];
  const processNode = (node: BuNode, depth: number) => {
    let nextDepth = depth;
    const depthStr = "\t".repeat(depth);
    if (node.kind === "element") {
      if (node.highlight !== null) {
        nextDepth += 1;
        let text = textTillNextClickable(node);
        let attributesHtml: string | null = null;
        const attrs = new Map<string, string>();
        for (const [key, value] of Object.entries(node.attributes)) {
          const v = pyStrip(String(value));
          if (include.includes(key) && v !== "") attrs.set(key, v);
        }
        const ordered = include.filter((k) => attrs.has(k));
        if (ordered.length > 1) {
          const seen = new Set<string>();
          for (const key of ordered) {
            const value = attrs.get(key) ?? "";
            if (Array.from(value).length > 5) {
              if (seen.has(value)) attrs.delete(key);
              else seen.add(value);
            }
          }
        }
        if (node.tag === attrs.get("role")) attrs.delete("role");
        for (const attr of ["aria-label", "placeholder", "title"]) {
          const v = attrs.get(attr);
          if (v && pyStrip(v).toLowerCase() === pyStrip(text).toLowerCase()) attrs.delete(attr);
        }
        if (attrs.size > 0) attributesHtml = [...attrs].map(([key, value]) => `${key}=${capTextLength(value, 15)}`).join(" ");
        let line = `${depthStr}[${node.highlight}]<${node.tag}`;
        if (attributesHtml) line += ` ${attributesHtml}`;
        if (text) {
          text = pyStrip(text);
          if (!attributesHtml) line += " ";
          line += `>${text}`;
        } else if (!attributesHtml) line += " ";
        line += " />";
        lines.push(line);
      }
      for (const child of node.children) processNode(child, nextDepth);
    } else {
      if (hasHighlightedAncestor(node)) return;
      if (node.parent?.visible && node.parent.top) lines.push(`${depthStr}${node.text}`);
    }
  };
  processNode(root, 0);
  return lines.join("\n");
}

interface PageInfo {
  url: string;
  title: string;
  vw: number;
  vh: number;
  pw: number;
  ph: number;
  scrollY: number;
}

const MAX_CLICKABLE_ELEMENTS_LENGTH = 40_000;

/** The page part of `_get_browser_state_description`: tab line, page info, and the element list with its scroll markers. */
function describeState(elementsText: string, pi: PageInfo): string {
  let text = elementsText;
  let truncated = "";
  if (text.length > MAX_CLICKABLE_ELEMENTS_LENGTH) {
    text = text.slice(0, MAX_CLICKABLE_ELEMENTS_LENGTH);
    truncated = ` (truncated to ${MAX_CLICKABLE_ELEMENTS_LENGTH} characters)`;
  }
  const above = pi.scrollY;
  const below = Math.max(0, pi.ph - pi.vh - pi.scrollY);
  const pages = (px: number) => (pi.vh > 0 ? px / pi.vh : 0).toFixed(1);
  const position = Math.round((pi.scrollY / Math.max(pi.ph - pi.vh, 1)) * 100);
  const pageInfo = `Page info: ${pi.vw}x${pi.vh}px viewport, ${pi.pw}x${pi.ph}px total page size, ${pages(above)} pages above, ${pages(below)} pages below, ${pages(pi.ph)} total pages, at ${position}% of page`;
  const hint = "scroll to see more or extract structured data if you are looking for specific information ...";
  if (text !== "") {
    text = above > 0 ? `... ${above} pixels above (${pages(above)} pages) - ${hint}\n${text}` : `[Start of page]\n${text}`;
    text = below > 0 ? `${text}\n... ${below} pixels below (${pages(below)} pages) - ${hint}` : `${text}\n[End of page]`;
  } else text = "empty page";
  return `Current tab: 0
Available tabs:
Tab 0: ${pi.url} - ${pi.title.slice(0, 30)}

${pageInfo}
Interactive elements from top layer of the current page inside the viewport${truncated}:
${text}
`;
}

/** Runs the script (its source `code`) in `page` with `args` and returns what the model would read. */
export async function browserUseState(page: Page, code: string, args: BrowserUseArgs): Promise<BrowserUseState> {
  // The file is one arrow-function expression ending in ";" (Playwright's page.evaluate calls it with args).
  const fn = code.trim().replace(/;$/, "");
  const result = (await page.evaluate(`(${fn})(${JSON.stringify(args)})`)) as {
    rootId: string;
    map: Record<string, JsNode>;
  };
  if (args.doHighlightElements) await page.evaluate(() => document.getElementById("playwright-highlight-container")?.remove());
  const pi = (await page.evaluate(() => ({
    url: location.href,
    title: document.title,
    vw: window.innerWidth,
    vh: window.innerHeight,
    pw: Math.max(document.documentElement.scrollWidth, document.body?.scrollWidth ?? 0),
    ph: Math.max(document.documentElement.scrollHeight, document.body?.scrollHeight ?? 0),
    scrollY: Math.round(window.scrollY),
  }))) as PageInfo;
  const root = buildTree(result.map, result.rootId);
  const highlighted: BrowserUseState["highlighted"] = [];
  const visit = (n: BuNode) => {
    if (n.kind !== "element") return;
    if (n.highlight !== null) highlighted.push({ index: n.highlight, tag: n.tag, xpath: n.xpath });
    for (const c of n.children) visit(c);
  };
  visit(root);
  return { text: describeState(clickableElementsToString(root), pi), highlighted };
}
