/**
 * The author's bio under a story: a block in the second half of the text that starts with the
 * name of the page's own author (its metadata: meta author, JSON-LD, byline) and goes on to say who
 * they are ("Jane Doe is a freelance writer...", "About the author: Jane Doe has covered tech for
 * 15 years"). Bio boxes with a class of their own go in the
 * pruning (ALWAYS in prune.ts); these are the plain paragraphs a template or the writer appends,
 * and author cards with unremarkable classes. A card goes whole: the bio is often set beside the
 * author's name, role and a "View all posts by" link, all inside one small box. The author's first
 * name alone opens a bio ("Jane is a content writer at...") only inside a card that also prints the
 * full name. A paragraph about someone else, or one that names the author without such a verb
 * ("Jane Doe told us..."), stays; so does a name of one word (a brand, a team).
 */
import { textStats } from "./dom.ts";

const BIO_VERB = /^(is|was|has|writes|covers|joined|serves|leads|holds|brings)\b/;
/** A label before the name: "About the author:", "By". */
const LABEL = /^(about the (author|writer)|about|by)\s*:?\s*/;
/** A bio is a few sentences; a longer block is part of the story. */
const BIO_MAX = 1000;
const BIO_MIN = 40;
/** A paragraph holding this share of the text is the story itself (a profile of its writer). */
const STORY_SHARE = 0.3;
/** Text an author card holds besides the bio: the name, a role, a link to the author's posts. */
const CARD_EXTRA = 300;

/** The author field's names ("Ann Lee, Bo Chan and Cy Diaz"), lower-cased; names of one word are left out. */
function authorNames(author: string): string[] {
  return author
    .split(/,|\band\b|&/)
    .map((s) => s.replace(/\s+/g, " ").trim().toLowerCase())
    .filter((s) => s.includes(" ") && s.length > 5);
}

const clean = (el: Element) => (el.textContent ?? "").replace(/\s+/g, " ").trim();

/** The name the bio `low` (lower-cased, label stripped) opens with: "full", "first" or null. */
function opensWith(low: string, names: string[]): { name: string; first: boolean } | null {
  for (const name of names) {
    if (low.startsWith(name)) {
      const rest = low.slice(name.length);
      if (BIO_VERB.test(rest.trim())) return { name, first: false };
    }
    const first = name.split(" ")[0] ?? "";
    if (first.length > 2 && low.startsWith(`${first} `) && BIO_VERB.test(low.slice(first.length).trim()))
      return { name, first: true };
  }
  return null;
}

/** Paragraphs and text-only divs (no paragraph or div inside): where a bio's sentences sit. */
function textBlocks(root: Element, selector = "p, div"): Element[] {
  const out: Element[] = [];
  for (const el of root.querySelectorAll(selector)) {
    let leaf = true;
    for (let c = el.firstElementChild; c && leaf; c = c.nextElementSibling)
      if (c.localName === "p" || c.localName === "div") leaf = false;
    if (leaf) out.push(el);
  }
  return out;
}

export function dropAuthorBio(root: Element, author: string): void {
  const names = authorNames(author);
  if (names.length === 0) return;
  const blocks = textBlocks(root);
  const total = textStats(root).chars;
  for (const p of blocks.slice(Math.floor(blocks.length / 2))) {
    if (!p.isConnected || !root.contains(p)) continue;
    const t = clean(p);
    if (t.length < BIO_MIN || t.length > BIO_MAX || t.length > STORY_SHARE * total) continue;
    const opened = opensWith(t.toLowerCase().replace(LABEL, ""), names);
    if (!opened) continue;
    // The card around the bio: the largest ancestor below the root that adds little else.
    let card = p;
    for (let up = p.parentElement; up && up !== root && clean(up).length <= t.length + CARD_EXTRA; up = up.parentElement)
      card = up;
    if (opened.first && !clean(card).toLowerCase().includes(opened.name)) continue;
    card.remove();
  }
}

/**
 * A label over a bio: the writer's ("About the author", "Written by"), the reviewer's ("About the
 * reviewer", "Medically reviewed by") or a contributor's. A short block of its own; a sentence that
 * opens so ("Written by hand, the letters ...") is longer or goes on.
 */
const BIO_LABEL =
  /^(about (the|our|this) (author|writer|reviewer|expert|contributor|editor)s?|meet (the|our) (author|writer|reviewer|expert)s?|(written|reviewed|medically reviewed|fact[- ]checked|edited) by)\b/i;
const LABEL_CHARS = 60;
/** A labelled bio box holds the label, a name, a role and a few sentences. */
const BOX_MAX = 1200;

/**
 * The bio boxes a label names, in the second half of the story (above it, "Written by" is the
 * byline): the largest block around the label below the root that opens with it and holds at most
 * BOX_MAX characters (a card: label, photo, name, role, bio), or, when the label stands alone among
 * the story's paragraphs ("<p>About the Author:</p><p>Jane Doe is ...</p>"), the label and the
 * paragraph after it. WCXB: seven articles up (4090 0.925 -> 0.982, 4095 0.967 -> 0.993, 0352 0.968
 * -> 0.984, 4058, 0165, 0365, 0186), none down.
 */
export function dropLabelledBios(root: Element): void {
  const doomed: Element[] = [];
  for (const el of secondHalf(root, "p, div, h2, h3, h4, h5, h6")) {
    const t = clean(el);
    if (t.length === 0 || t.length > LABEL_CHARS || !BIO_LABEL.test(t)) continue;
    // The box opens with its label: a block whose text starts otherwise holds the story's paragraphs.
    const box = widestBox(el, root, (_, text) => text.startsWith(t)) ?? el;
    doomed.push(box);
    const next = box === el ? el.nextElementSibling : null;
    if (next && clean(next).length <= BIO_MAX) doomed.push(next);
  }
  for (const d of doomed) d.remove();
}

/** A bio's opening: a name of one to four capitalised words (a title before it), then a bio verb. */
const NAMED_BIO =
  /^((?:Dr|Mr|Ms|Mrs|Prof)\.? )?(\p{Lu}[\p{L}'’.-]+(?: \p{Lu}[\p{L}'’.-]+){0,3}),? (is|was|has|joined|writes|covers|leads|holds|brings|founded|serves|specializes|specialises|works|helps)\b/u;
/** A person's full name on a line: two to four capitalised words ("Sarah Knowles MW"). */
const FULL_NAME = /^(?:(?:Dr|Mr|Ms|Mrs|Prof)\.? )?\p{Lu}[\p{L}'’.-]+(?: \p{Lu}[\p{L}'’.-]+){1,3}$/u;
/** A card's other lines are short: a name, a role, a link to the author's page. */
const CARD_LINE = 160;

/**
 * An author card without a label after the story: a small block that prints a person's name on a
 * line of its own and a bio that opens with that name or its first word ("Elliot Raba / Enterprise
 * Sales Executive / Elliot is a dynamic ..."). The name on its own line is what makes it a card: a
 * paragraph of the story that opens with someone's name ("Jack Butcher is a conceptual artist who
 * ...") has none beside it. The card closes the story (AFTER_CARD): a brand's or a place's entry in
 * a list reads the same ("Printfresh / US-based Printfresh was founded in 2016 ..."), and without
 * that check such entries went (4106 -0.038, 4624 -0.047, service 0711 -0.108). WCXB: seven
 * articles up (0319 0.946 -> 0.972, 4691 0.974 -> 0.990, 0309 0.962 -> 0.978, 4656, 0041, 0069,
 * 4414), none down.
 */
export function dropNamedBios(root: Element): void {
  const doomed: Element[] = [];
  for (const el of secondHalf(root, "p, div")) {
    const t = clean(el);
    if (t.length < BIO_MIN || t.length > BIO_MAX) continue;
    const m = NAMED_BIO.exec(t);
    if (!m?.[2]) continue;
    const name = m[2];
    const first = name.split(" ")[0] ?? name;
    const box = widestBox(el, root, (up) => !longLine(up, el));
    if (box && nameLine(box, el, name, first) && textAfter(box, root) <= AFTER_CARD) doomed.push(box);
  }
  for (const d of doomed) if (d.isConnected) d.remove();
}

/** The text blocks of the story's second half (in the first, a label or a name is the byline). */
function secondHalf(root: Element, selector: string): Element[] {
  const blocks = textBlocks(root, selector);
  return blocks.slice(Math.floor(blocks.length / 2));
}

/**
 * The widest ancestor of `el` below `root` of at most BOX_MAX characters, climbing while `keeps`
 * accepts each (null when its parent is already too long or refused).
 */
function widestBox(el: Element, root: Element, keeps: (up: Element, text: string) => boolean): Element | null {
  let box: Element | null = null;
  for (let up = el.parentElement; up && up !== root; up = up.parentElement) {
    const text = clean(up);
    if (text.length > BOX_MAX || !keeps(up, text)) break;
    box = up;
  }
  return box;
}

/** Text after a closing card (a share bar, a date): more, and the card is one of the story's entries. */
const AFTER_CARD = 300;

/** Length of the text after `el` inside `root`. */
function textAfter(el: Element, root: Element): number {
  let n = 0;
  for (let a: Element | null = el; a && a !== root; a = a.parentElement)
    for (let s = a.nextElementSibling; s; s = s.nextElementSibling) n += clean(s).length;
  return n;
}

/** True when `box` holds a text block other than `bio` longer than a card's line. */
function longLine(box: Element, bio: Element): boolean {
  for (const b of textBlocks(box)) if (b !== bio && !b.contains(bio) && clean(b).length > CARD_LINE) return true;
  return false;
}

/** True when an element of `box` outside `bio` reads just the name, the first name, or "By" and the name. */
function nameLine(box: Element, bio: Element, name: string, first: string): boolean {
  for (const el of box.querySelectorAll("*")) {
    if (el === bio || bio.contains(el) || el.contains(bio)) continue;
    const t = clean(el).replace(/^by\s+/i, "");
    if (t === name || t === first || (FULL_NAME.test(t) && t.startsWith(`${first} `))) return true;
  }
  return false;
}
