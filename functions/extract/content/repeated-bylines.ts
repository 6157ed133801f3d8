/**
 * A post's byline printed twice: templates that lay a post out for wide and narrow screens give
 * it two author blocks (Invision's author column and its header; phpBB's profile column and the
 * "by Bob » date" line), and a post's date sits both under the name and in the post's meta line.
 * Once the chrome around them is gone the reader's text shows the name, or the date, on two lines
 * in a row, or the pair of them twice ("Bob / May 1 / Bob / May 1"). The second goes. Only a
 * byline's line repeats so: a name (a link to the member's profile, or a line kept from the author
 * card) or a date; a line of the post said twice stays.
 */
import { isSkipped } from "../output/dom.ts";
import { BLOCK_TAGS } from "../output/tags.ts";
import { DATE_TEXT, isKeptByline, PROFILE_HREF } from "./post-byline.ts";

const LINE_CHARS = 60;
const squash = (s: string) => s.replace(/\s+/g, " ").trim();

interface Line {
  text: string;
  nodes: Text[];
  /** Every text of the line is a name's or a date's. */
  byline: boolean;
}

/** Removes a name or date line that repeats one of the byline lines just before it inside `root`. */
export function dropRepeatedBylines(root: Element): void {
  const lines: Line[] = [];
  let cur: Line = { text: "", nodes: [], byline: true };
  const close = () => {
    const text = squash(cur.text);
    if (text !== "") lines.push({ text, nodes: cur.nodes, byline: cur.byline });
    cur = { text: "", nodes: [], byline: true };
  };
  const walk = (el: Element, inByline: boolean) => {
    for (let n = el.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === 3) {
        const data = (n as Text).data;
        if (data.trim() === "") continue;
        cur.text += data;
        cur.nodes.push(n as Text);
        if (!inByline) cur.byline = false;
        continue;
      }
      if (n.nodeType !== 1) continue;
      const c = n as Element;
      if (isSkipped(c)) continue;
      const tag = c.localName;
      if (tag === "br") {
        close();
        continue;
      }
      const block = BLOCK_TAGS.has(tag);
      if (block) close();
      walk(c, inByline || bylineElement(c));
      if (block) close();
    }
  };
  walk(root, false);
  close();
  // A run of byline lines, in which a line said before goes ("Bob / May 1 / Bob / May 1").
  let seen = new Set<string>();
  for (const line of lines) {
    if (line.text.length > LINE_CHARS || !(line.byline || DATE_TEXT.test(line.text))) {
      seen = new Set();
      continue;
    }
    if (seen.has(line.text)) for (const t of line.nodes) removeEmptied(t, root);
    else seen.add(line.text);
  }
}

/** A name's or a date's element: a link to a profile, a <time>, a byline line kept from an author card. */
function bylineElement(el: Element): boolean {
  return (
    el.localName === "time" || isKeptByline(el) || (el.localName === "a" && PROFILE_HREF.test(el.getAttribute("href") ?? ""))
  );
}

/** Removes `node`, then each ancestor below `root` left without text. */
function removeEmptied(node: Node, root: Element): void {
  let parent: Element | null = node.parentElement;
  node.parentNode?.removeChild(node);
  while (parent && parent !== root && (parent.textContent ?? "").trim() === "") {
    const up: Element | null = parent.parentElement;
    parent.remove();
    parent = up;
  }
}
