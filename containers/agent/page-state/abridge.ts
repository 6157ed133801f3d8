import type { Box } from "./types.ts";

/**
 * Shortens page text far from the viewport. Its input is the page's text as `capturePageState`
 * assembles it: `[n]` element markers and the walk's position sentinels (see `dom-walk.ts`), with
 * boxes in top-page viewport pixels. Lines that lie, even in part, within `near` (the viewport and
 * about a viewport's height above and below it) are kept whole. Of the lines beyond it only element
 * markers with the start of their own text (what names them) and headings are kept; the plain text
 * between them becomes `(… 1,240 characters)` lines (runs under 100 characters, a separator or a
 * date between links, go without one), so that the model knows text is there and can scroll to it
 * or extract it. The sentinels are removed either way. The near window follows the top page's
 * viewport only: an inner scroller's content is placed by its boxes like any other.
 */

/** Text is kept whole within this many viewport heights above and below the viewport. */
export const NEAR = 1;
/** Characters of an element's own text kept beyond `near` (the start of its name: see `render.ts`). */
const ELEMENT_TEXT = 50;
/** Characters of a heading kept beyond `near`. */
const HEADING_TEXT = 80;
/** Runs of left-out text shorter than this go without a placeholder (a separator, a date, a price). */
const PLACEHOLDER_MIN = 100;

export interface AbridgeResult {
  text: string;
  /** Characters of page text left out (whitespace runs counted as one). */
  abridged: number;
  /** With `scope`: what lies wholly above and below it, left out of `text` (markers included). */
  outside?: { above: Outside; below: Outside };
}

/** Content left out beyond a scope: its element markers and characters of text. */
export interface Outside {
  elements: number;
  chars: number;
}

interface Piece {
  /** Text, or a marker's `[n]`. */
  s: string;
  marker?: number;
  top: number;
  bottom: number;
  /** Inside an interactive element: the outermost one's marker number. */
  inElement?: number;
  heading: boolean;
}

const SENTINELS = /(\[\d+\]|\uE003-?\d+:-?\d+\uE002|[\uE004-\uE006])/;

export function placeholder(chars: number): string {
  return `(… ${chars.toLocaleString("en-US")} characters)`;
}

/**
 * The text with its sentinels removed and, when `near` is given, shortened beyond it. With `scope`
 * (the viewport and a margin), lines wholly outside it are left out altogether, elements too, and
 * counted in `outside`.
 */
export function abridge(
  text: string,
  boxes: (index: number) => Box | undefined,
  near?: { top: number; bottom: number },
  scope?: { top: number; bottom: number },
): AbridgeResult {
  if (!near) return { text: text.replace(/\uE003-?\d+:-?\d+\uE002|[\uE004-\uE006]/g, ""), abridged: 0 };
  const lines: Piece[][] = [[]];
  let top = 0;
  let bottom = 0;
  let heading = 0;
  /** Markers of the interactive elements open around the current text, outermost first. */
  const open: number[] = [];
  for (const part of text.split(SENTINELS)) {
    if (!part) continue;
    const line = lines[lines.length - 1] as Piece[];
    if (part.startsWith("[")) {
      const n = Number(part.slice(1, -1));
      const box = boxes(n);
      line.push({ s: part, marker: n, top: box?.y ?? top, bottom: box ? box.y + box.h : bottom, heading: heading > 0 });
      open.push(n);
    } else if (part.startsWith("\uE003")) {
      const [t, b] = part.slice(1, -1).split(":");
      top = Number(t);
      bottom = Number(b);
    } else if (part === "\uE004") heading++;
    else if (part === "\uE005") heading = Math.max(0, heading - 1);
    else if (part === "\uE006") open.pop();
    else {
      const [first, ...rest] = part.split("\n");
      const piece = (s: string): Piece => {
        const p: Piece = { s, top, bottom, heading: heading > 0 };
        if (open.length) p.inElement = open[0];
        return p;
      };
      if (first) line.push(piece(first));
      for (const s of rest) lines.push(s ? [piece(s)] : []);
    }
  }

  const out: string[] = [];
  let dropped = 0;
  let abridged = 0;
  const flush = () => {
    if (dropped >= PLACEHOLDER_MIN) out.push(placeholder(dropped));
    abridged += dropped;
    dropped = 0;
  };
  const within = (p: Piece) => p.bottom >= near.top && p.top <= near.bottom;
  /** Characters of its own text still kept for each far element. */
  const budget = new Map<number, number>();
  const outside = { above: { elements: 0, chars: 0 }, below: { elements: 0, chars: 0 } };
  for (const line of lines) {
    const placed = line.filter((p) => p.marker !== undefined || p.s.trim());
    if (scope && placed.length && !placed.some((p) => p.bottom >= scope.top && p.top <= scope.bottom)) {
      const side = (placed[0] as Piece).bottom < scope.top ? outside.above : outside.below;
      for (const p of placed) {
        if (p.marker !== undefined) side.elements += 1;
        else side.chars += p.s.replace(/\s+/g, " ").trim().length;
      }
      continue;
    }
    if (line.some((p) => (p.marker !== undefined || p.s.trim()) && within(p))) {
      flush();
      out.push(line.map((p) => p.s).join(""));
      continue;
    }
    let kept = "";
    let any = false;
    /** Left out of this line: counted after it, so that a placeholder stands for text it precedes. */
    let lost = 0;
    for (const p of line) {
      if (p.marker !== undefined) {
        kept += p.s;
        any = true;
        continue;
      }
      const plain = p.s.replace(/\s+/g, " ");
      if (!plain.trim()) {
        kept += plain;
        continue;
      }
      const room = p.inElement !== undefined ? (budget.get(p.inElement) ?? ELEMENT_TEXT) : p.heading ? HEADING_TEXT : 0;
      if (room <= 0) {
        lost += plain.trim().length;
        kept += " ";
        continue;
      }
      const cut = plain.length > room ? `${plain.slice(0, room).trimEnd()}…` : plain;
      if (plain.length > room) lost += plain.length - room;
      if (p.inElement !== undefined) budget.set(p.inElement, room - plain.length);
      kept += cut;
      any = true;
    }
    if (any) {
      flush();
      out.push(kept);
    }
    dropped += lost;
  }
  flush();
  return { text: out.join("\n"), abridged, ...(scope ? { outside } : {}) };
}
