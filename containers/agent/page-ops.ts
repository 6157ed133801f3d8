/// <reference lib="dom" />
import type { ElementHandle, KeyInput, Page } from "puppeteer-core";

/** Page helpers the actions share: checks run inside the page (waiting for it to settle is settle.ts). */

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A cheap fingerprint of the visible document (`doc` changes with every new document), to tell what an action changed. */
export async function domSignature(page: Page): Promise<{ doc: number; sig: string }> {
  return page
    .evaluate(() => {
      const body = document.body;
      // biome-ignore lint/performance/useDomNodeTextContent: a change of the visible text is what counts
      const text = body?.innerText ?? "";
      return {
        doc: performance.timeOrigin,
        sig: `${location.href}|${text.length}|${body?.getElementsByTagName("*").length}|${text.slice(0, 2000)}`,
      };
    })
    .catch(() => ({ doc: 0, sig: "" }));
}

export type ClickCheck = { ok: true; viaLabel?: boolean; x: number; y: number } | { ok: false; reason: string };

/**
 * Runs in the element's frame: brings it into view when it is not wholly in view, then checks that
 * it is visible, enabled and the topmost element at its centre (or a label for it, for styled
 * checkboxes). The point checked (in the frame's viewport) is returned for the click to land on.
 * When something else is on top, names what covers it (the nearest dialog-like ancestor of the
 * element hit, if any).
 */
export function clickCheck(el: Element): ClickCheck {
  const describe = (n: Element): string => {
    const dialog = n.closest('[role="dialog"], [role="alertdialog"], [aria-modal="true"], dialog') ?? n;
    const role = dialog.getAttribute("role");
    const label = dialog.getAttribute("aria-label");
    const id = dialog.id ? `#${dialog.id}` : "";
    // biome-ignore lint/performance/useDomNodeTextContent: the words the user sees name the cover
    const text = ((dialog as HTMLElement).innerText ?? dialog.textContent ?? "").replace(/\s+/g, " ").trim().slice(0, 80);
    return `<${dialog.localName}${id}${role ? ` role="${role}"` : ""}${label ? ` aria-label="${label}"` : ""}>${text ? ` "${text}"` : ""}`;
  };
  const labels = "labels" in el ? Array.from((el as HTMLInputElement).labels ?? []) : [];
  const seen = el.getBoundingClientRect();
  if (seen.top < 0 || seen.left < 0 || seen.bottom > innerHeight || seen.right > innerWidth)
    el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  const r = el.getBoundingClientRect();
  const style = getComputedStyle(el);
  if ((el as HTMLButtonElement).disabled) return { ok: false, reason: "is disabled" };
  if (r.width < 1 || r.height < 1 || style.visibility === "hidden" || Number(style.opacity) === 0) {
    if (labels.some((l) => l.getBoundingClientRect().width > 0)) return { ok: true, viaLabel: true, x: 0, y: 0 };
    return { ok: false, reason: "is not visible (it has no size or is hidden)" };
  }
  const x = r.left + Math.min(r.width / 2, innerWidth / 2);
  const y = r.top + Math.min(r.height / 2, innerHeight / 2);
  if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) return { ok: false, reason: "could not be scrolled into view" };
  const root = el.getRootNode() as Document | ShadowRoot;
  const hit = (typeof root.elementFromPoint === "function" ? root : document).elementFromPoint(x, y);
  if (!hit || hit === el || el.contains(hit) || hit.contains(el) || labels.some((l) => l === hit || l.contains(hit)))
    return { ok: true, x, y };
  return { ok: false, reason: `is covered by ${describe(hit)}; deal with that first (close or answer it)` };
}

/**
 * Runs in the field's frame: brings it into view when it is not wholly in view, focuses it and,
 * with `clear`, clears it (an input, textarea or contenteditable) the way a user would see it
 * (events fire, frameworks notice).
 */
export function focusField(el: Element, clear: boolean): void {
  const field = el as HTMLInputElement;
  const r = el.getBoundingClientRect();
  if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth)
    el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  field.focus();
  if (!clear) return;
  if ("value" in field && (el.localName === "input" || el.localName === "textarea")) {
    const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(field), "value")?.set;
    if (setter) setter.call(field, "");
    else field.value = "";
    field.dispatchEvent(new Event("input", { bubbles: true }));
    return;
  }
  if ((el as HTMLElement).isContentEditable) {
    const range = document.createRange();
    range.selectNodeContents(el);
    const sel = getSelection();
    sel?.removeAllRanges();
    sel?.addRange(range);
    document.execCommand("delete");
  }
}

/** Keys of puppeteer's US keyboard layout that a character of text is typed with (printable ASCII, Enter). */
const KEYED = /^[\x20-\x7e\r\n]$/;

/**
 * Types `text` into the focused element key by key, as a fast typist would: every character its
 * own keydown, keypress, input and keyup, in order (a character with no key on a US keyboard is
 * inserted as text). The keys go out one after another without waiting for each other's answer:
 * the renderer still handles them one at a time and in order, only the round trip per key is saved.
 */
export async function typeKeys(page: Page, text: string): Promise<void> {
  const sent: Promise<void>[] = [];
  for (const char of text) {
    if (KEYED.test(char)) sent.push(page.keyboard.down(char as KeyInput), page.keyboard.up(char as KeyInput));
    else sent.push(page.keyboard.sendCharacter(char));
  }
  await Promise.all(sent);
}

export interface FieldInfo {
  editable: boolean;
  secret: boolean;
  value: string | null;
  tag: string;
  type: string;
}

/**
 * What an action may know of a field. A secret field's value is never read out: passwords, card
 * numbers and one-time codes, and any input or textarea masked with `-webkit-text-security` (how
 * fill_credential hides what it typed, even in a username field or after a "show password" toggle).
 */
export function fieldInfo(el: Element): FieldInfo {
  const field = el as HTMLInputElement;
  const tag = el.localName;
  const type = (field.type ?? "").toLowerCase();
  const ac = (el.getAttribute("autocomplete") ?? "").toLowerCase();
  const masked =
    (tag === "input" || tag === "textarea") &&
    !["", "none"].includes(getComputedStyle(el).getPropertyValue("-webkit-text-security"));
  const secret = masked || type === "password" || /cc-|one-time-code|current-password|new-password/.test(ac);
  const editable =
    (tag === "input" && !["button", "submit", "reset", "checkbox", "radio", "file", "image", "hidden"].includes(type)) ||
    tag === "textarea" ||
    (el as HTMLElement).isContentEditable;
  const value =
    tag === "input" || tag === "textarea" ? field.value : (el as HTMLElement).isContentEditable ? (el.textContent ?? "") : null;
  return { editable, secret, value: secret ? null : value, tag, type };
}

/** Selects the option whose visible text (or failing that, value) matches; returns the options when none does. */
export function chooseOption(
  el: Element,
  wanted: string,
): { ok: true; text: string; value: string } | { ok: false; options: string[] } {
  const select = el as HTMLSelectElement;
  const norm = (s: string) => s.replace(/\s+/g, " ").trim().toLowerCase();
  const opts = Array.from(select.options);
  const w = norm(wanted);
  const match =
    opts.find((o) => norm(o.text) === w) ??
    opts.find((o) => o.value === wanted) ??
    opts.find((o) => norm(o.text).includes(w) && w.length > 0);
  if (!match || match.disabled) return { ok: false, options: opts.map((o) => o.text.trim()) };
  select.focus();
  select.value = match.value;
  match.selected = true;
  select.dispatchEvent(new Event("input", { bubbles: true }));
  select.dispatchEvent(new Event("change", { bubbles: true }));
  return { ok: true, text: match.text.trim(), value: select.value };
}

/** Scrolls the element (its nearest scrollable box) or the page; reports where it ended up. */
export function scrollBy(el: Element | null, dy: number): { moved: number; atEnd: boolean } {
  let box: Element | null = el;
  while (box && box !== document.documentElement) {
    const s = getComputedStyle(box);
    if (/(auto|scroll|overlay)/.test(s.overflowY) && box.scrollHeight > box.clientHeight) break;
    box = box.parentElement;
  }
  const target = box && box !== document.documentElement ? box : (document.scrollingElement ?? document.documentElement);
  const before = target.scrollTop;
  const step = dy * (target === document.scrollingElement ? innerHeight : target.clientHeight);
  target.scrollTop = before + step;
  const moved = target.scrollTop - before;
  const atEnd = dy > 0 ? target.scrollTop + target.clientHeight >= target.scrollHeight - 2 : target.scrollTop <= 0;
  return { moved, atEnd };
}

export async function disposeAll(handles: (ElementHandle | null | undefined)[]): Promise<void> {
  await Promise.all(handles.map((h) => h?.dispose().catch(() => {})));
}
