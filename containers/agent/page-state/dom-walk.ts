/// <reference lib="dom" />
import type { Box, FrameCapture, RawElement } from "./types.ts";

/**
 * The in-page half of the capture: `walkFrame` runs inside one frame (puppeteer serialises it, so it
 * must stay self-contained: no imports or outer helpers at run time). It walks the flat tree (open
 * shadow roots in place of their hosts' children, slots replaced by what is assigned to them) and
 * returns the visible text with sentinels where interactive elements (\uE000n\uE002) and child frames
 * (\uE001k\uE002) sit: private-use characters, which are dropped from page text (icon-font glyphs).
 * Further sentinels tell `abridge` where text lies: \uE003top:bottom\uE002 before text whose box
 * (its parent element's, in viewport pixels) differs from the last one given, \uE004 and \uE005
 * around a heading's content, and \uE006 where an interactive element's content ends.
 * The elements found wait in a hidden property until `markFrame` gives them their page-wide index
 * as `data-osprey-idx`. Given the capture's id (the top frame's walk), the walk marks them at once
 * as if this frame were the whole page (element i is [i + 1]), which most pages are: `markFrame`
 * is then needed only where the capture numbered them otherwise.
 */

export function walkFrame(maxText: number, capture: string | null = null): FrameCapture {
  const POS = "\uE003";
  const HEAD_OPEN = "\uE004";
  const HEAD_CLOSE = "\uE005";
  const END = "\uE006";
  const IDX = "data-osprey-idx";
  const FRAME = "data-osprey-frame";
  const ROLES = new Set(
    "button link checkbox radio switch tab menuitem menuitemcheckbox menuitemradio option combobox textbox searchbox slider spinbutton listbox treeitem".split(
      " ",
    ),
  );
  const SKIP = new Set(
    "script style noscript template head title meta link svg math textarea select option datalist canvas".split(" "),
  );
  const BLOCK = /^(block|flex|grid|list-item|table|table-row|table-caption|flow-root)$/;
  const SECRET_AUTOCOMPLETE = /(cc-number|cc-csc|cc-exp|one-time-code|current-password|new-password)/;
  const INPUT_ROLES: Record<string, string> = Object.fromEntries(
    "checkbox:checkbox radio:radio range:slider number:spinbutton search:searchbox button:button submit:button reset:button image:button file:button color:button"
      .split(" ")
      .map((pair) => pair.split(":")),
  );

  const clip = (s: string, n: number) => {
    const t = s.replace(/\s+/g, " ").trim();
    return t.length > n ? `${t.slice(0, n - 1)}…` : t;
  };
  /** Text of a subtree for names and labels (fields' own contents left out). */
  const plain = (node: Node): string => {
    if (node.nodeType === 3) return node.textContent ?? "";
    if (!(node instanceof Element) || SKIP.has(node.localName)) return "";
    if (node.localName === "img") return ` ${node.getAttribute("alt") ?? ""} `;
    let s = "";
    for (const c of Array.from(node.childNodes)) s += plain(c);
    return s;
  };
  const docs = [document] as (Document | ShadowRoot)[];
  const byId = (el: Element, id: string) => (el.getRootNode() as Document | ShadowRoot).getElementById?.(id) ?? null;
  const shown = (el: Element) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && el.checkVisibility({ opacityProperty: true, visibilityProperty: true });
  };
  const boxOf = (el: Element): Box => {
    const r = el.getBoundingClientRect();
    return { x: Math.round(r.x), y: Math.round(r.y), w: Math.round(r.width), h: Math.round(r.height) };
  };

  function roleOf(el: HTMLElement, style: CSSStyleDeclaration, interactiveAbove: boolean, parentCursor: string): string | null {
    const explicit = el.getAttribute("role")?.trim().split(/\s+/)[0];
    if (explicit && ROLES.has(explicit)) return explicit;
    const tag = el.localName;
    if (tag === "a" && el.hasAttribute("href")) return "link";
    if (tag === "button") return "button";
    if (el instanceof HTMLInputElement) return el.type === "hidden" ? null : (INPUT_ROLES[el.type] ?? "textbox");
    if (el instanceof HTMLSelectElement) return el.multiple || el.size > 1 ? "listbox" : "combobox";
    if (tag === "textarea") return "textbox";
    if (tag === "summary" && el.parentElement?.localName === "details") return "button";
    if (el.isContentEditable && !el.parentElement?.isContentEditable) return "textbox";
    if (interactiveAbove) return null;
    if (el.hasAttribute("onclick") || typeof el.onclick === "function") return "clickable";
    if (style.cursor === "pointer" && parentCursor !== "pointer") return "clickable";
    return null;
  }

  function nameOf(el: HTMLElement): string {
    const ids = el.getAttribute("aria-labelledby");
    if (ids) {
      const t = ids
        .split(/\s+/)
        .map((id) => (byId(el, id) ? plain(byId(el, id) as Element) : ""))
        .join(" ");
      if (t.trim()) return clip(t, 100);
    }
    const aria = el.getAttribute("aria-label");
    if (aria?.trim()) return clip(aria, 100);
    if (el instanceof HTMLInputElement || el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement) {
      const labels = Array.from(el.labels ?? [])
        .map((l) => plain(l))
        .join(" ");
      if (labels.trim()) return clip(labels, 100);
      if (el instanceof HTMLInputElement && ["submit", "button", "reset"].includes(el.type))
        return clip(el.value || (el.type === "submit" ? "Submit" : el.type === "reset" ? "Reset" : ""), 100);
      if (el instanceof HTMLInputElement && el.type === "image") return clip(el.alt || "Submit", 100);
      return clip(el.title, 100);
    }
    const text = el.isContentEditable ? "" : plain(el);
    if (text.trim()) return clip(text, 100);
    const inner = el.querySelector("img[alt], svg[aria-label], [title]");
    return clip(
      el.title || inner?.getAttribute("alt") || inner?.getAttribute("aria-label") || inner?.getAttribute("title") || "",
      100,
    );
  }

  const elements: RawElement[] = [];
  const pending: Element[] = [];
  const frames: FrameCapture["frames"] = [];
  let modal: Element | null = null;
  try {
    modal = document.querySelector("dialog:modal");
  } catch {}
  const out: string[] = [];
  let textLen = 0;
  let lastHost: Element | null = null;
  let lastPos = "";
  const range = document.createRange();
  /**
   * Marks where the text of `node` lies: its parent's box, or the text's own where the parent has
   * none (`display: contents`) or is taller than the viewport (text loose in a page-long container).
   */
  function place(node: Node, host: Element | null): void {
    const parent = node.parentElement ?? host;
    if (!parent) return;
    let r = parent.getBoundingClientRect();
    const own = (r.width === 0 && r.height === 0) || r.height > window.innerHeight;
    if (!own && parent === lastHost) return;
    lastHost = own ? null : parent;
    if (own) {
      range.selectNodeContents(node);
      r = range.getBoundingClientRect();
    }
    const pos = `${Math.round(r.top)}:${Math.round(r.bottom)}`;
    if (pos !== lastPos) out.push(`${POS}${pos}\uE002`);
    lastPos = pos;
  }

  function record(el: HTMLElement, role: string, control: HTMLElement, shadowDepth: number): void {
    const raw: RawElement = { role, name: nameOf(control), tag: el.localName, box: boxOf(el) };
    if (control !== el) raw.name = clip(plain(el), 100) || raw.name;
    // A field masked with -webkit-text-security holds a credential fill_credential typed: secret like a password.
    const masked =
      (control instanceof HTMLInputElement || control instanceof HTMLTextAreaElement) &&
      !["", "none"].includes(getComputedStyle(control).getPropertyValue("-webkit-text-security"));
    if (control instanceof HTMLInputElement) {
      raw.type = control.type;
      const secret = masked || control.type === "password" || SECRET_AUTOCOMPLETE.test(control.autocomplete);
      if (control.type === "checkbox" || control.type === "radio") raw.checked = control.checked;
      else if (secret) raw.filled = control.value.length > 0;
      else if (!["submit", "button", "reset", "image", "file"].includes(control.type) && control.value)
        raw.value = clip(control.value, 200);
    } else if (control instanceof HTMLTextAreaElement && masked) raw.filled = control.value.length > 0;
    else if (control instanceof HTMLTextAreaElement && control.value) raw.value = clip(control.value, 300);
    else if (control instanceof HTMLSelectElement) {
      const picked = Array.from(control.selectedOptions).map((o) => clip(o.text, 60));
      if (picked.length) raw.value = picked.join(", ");
      const opts = Array.from(control.options).map((o) => clip(o.text, 40));
      raw.options = opts.length > 12 ? [...opts.slice(0, 12), `+${opts.length - 12} more`] : opts;
    }
    if (control instanceof HTMLInputElement || control instanceof HTMLTextAreaElement) {
      if (control.placeholder) raw.placeholder = clip(control.placeholder, 80);
    }
    const aria = (a: string) => control.getAttribute(a);
    if (aria("aria-checked")) raw.checked = aria("aria-checked") === "true";
    if (aria("aria-selected")) raw.selected = aria("aria-selected") === "true";
    if (aria("aria-expanded")) raw.expanded = aria("aria-expanded") === "true";
    if (aria("aria-valuenow") && raw.value === undefined) raw.value = clip(aria("aria-valuenow") ?? "", 40);
    if (control.matches(":disabled") || aria("aria-disabled") === "true") raw.disabled = true;
    if (el instanceof HTMLAnchorElement && el.href) raw.href = el.href;
    if (shadowDepth > 0) raw.inShadow = true;
    out.push(` \uE000${elements.length}\uE002`);
    elements.push(raw);
    pending.push(el);
  }

  function walk(
    node: Node,
    st: { interactive: boolean; cursor: string; visible: boolean; shadow: number; inModal: boolean; host: Element | null },
  ) {
    if (node.nodeType === 3) {
      if (!st.visible || textLen > maxText) return;
      const t = (node.textContent ?? "")
        .replace(/\s+/g, " ")
        .replace(/\[(\d+)\]/g, "($1)")
        .replace(/[\uE000-\uF8FF]/g, "");
      if (t.trim()) place(node, st.host);
      out.push(t);
      textLen += t.length;
      return;
    }
    if (!(node instanceof HTMLElement)) {
      if (node instanceof ShadowRoot || node instanceof DocumentFragment)
        for (const c of Array.from(node.childNodes)) walk(c, st);
      return;
    }
    const el = node;
    const tag = el.localName;
    if (el.hasAttribute(IDX)) el.removeAttribute(IDX);
    const style = getComputedStyle(el);
    if (style.display === "none" || el.inert || el.getAttribute("aria-hidden") === "true") return;
    if (tag === "br") return void out.push("\n");
    // Clipped to nothing (zero-size boxes, the 1px "screen reader only" pattern): nothing in it is seen.
    if (style.overflow !== "visible" && style.display !== "contents") {
      const r = el.getBoundingClientRect();
      if (r.width <= 1 || r.height <= 1) return;
    }
    const visible = style.visibility === "visible";
    const inModal = st.inModal || el === modal;
    if (tag === "iframe" || tag === "frame") {
      if (visible && shown(el)) {
        const key = frames.length;
        el.setAttribute(FRAME, String(key));
        const b = boxOf(el);
        frames.push({ key, box: { x: b.x + el.clientLeft, y: b.y + el.clientTop, w: el.clientWidth, h: el.clientHeight } });
        out.push(`\n\uE001${key}\uE002\n`);
      }
      return;
    }
    let role: string | null = null;
    let control: HTMLElement = el;
    if (visible && el instanceof HTMLLabelElement && el.control instanceof HTMLElement && !shown(el.control)) {
      // A styled checkbox or file input: the real control is invisible, its label is what a user clicks.
      control = el.control;
      role = roleOf(control, getComputedStyle(control), false, "") ?? "clickable";
    } else if (visible) role = roleOf(el, style, st.interactive, st.cursor);
    const block = BLOCK.test(style.display);
    if (block) out.push("\n");
    const act = role !== null && (!modal || inModal) && shown(el);
    if (act && role) record(el, role, control, st.shadow);
    const heading = /^h[1-6]$/.test(tag) || el.getAttribute("role") === "heading";
    if (heading) out.push(HEAD_OPEN);
    if (!SKIP.has(tag)) {
      const next = {
        interactive: st.interactive || act,
        cursor: style.cursor,
        visible,
        shadow: st.shadow,
        inModal,
        host: el,
      };
      if (el.shadowRoot) {
        docs.push(el.shadowRoot);
        walk(el.shadowRoot, { ...next, shadow: st.shadow + 1 });
      } else if (el instanceof HTMLSlotElement && el.assignedNodes().length) {
        for (const c of el.assignedNodes()) walk(c, next);
      } else for (const c of Array.from(el.childNodes)) walk(c, next);
    }
    if (heading) out.push(HEAD_CLOSE);
    if (act) out.push(END);
    if (block) out.push("\n");
    else if (style.display === "table-cell" || style.display === "inline-block") out.push(" ");
  }

  if (document.body)
    walk(document.body, { interactive: false, cursor: "auto", visible: true, shadow: 0, inModal: false, host: document.body });
  // Marks left from an earlier capture in parts not walked this time (now hidden) must not resolve.
  for (const root of docs) for (const old of Array.from(root.querySelectorAll(`[${IDX}]`))) old.removeAttribute(IDX);
  Object.defineProperty(window, "__ospreyPending", { value: pending, configurable: true, enumerable: false });
  if (capture !== null) {
    for (const [i, el] of pending.entries()) el.setAttribute(IDX, String(i + 1));
    document.documentElement.setAttribute("data-osprey-capture", capture);
  }
  const de = document.documentElement;
  return {
    url: location.href,
    title: document.title,
    text: out.join(""),
    elements,
    frames,
    modal: modal !== null,
    scroll: {
      x: Math.round(window.scrollX),
      y: Math.round(window.scrollY),
      width: window.innerWidth,
      height: window.innerHeight,
      pageWidth: Math.max(de.scrollWidth, document.body?.scrollWidth ?? 0),
      pageHeight: Math.max(de.scrollHeight, document.body?.scrollHeight ?? 0),
    },
  };
}

/**
 * Gives the elements the last `walkFrame` found their page-wide indexes (`indexes[i]` for element i),
 * and stamps the document with the capture's id, so that an older state's indexes no longer resolve.
 */
export function markFrame(indexes: number[], capture: string): void {
  document.documentElement.setAttribute("data-osprey-capture", capture);
  const w = window as unknown as { __ospreyPending?: Element[] };
  const pending = w.__ospreyPending ?? [];
  pending.forEach((el, i) => {
    const index = indexes[i];
    if (index !== undefined && index > 0) el.setAttribute("data-osprey-idx", String(index));
    else el.removeAttribute("data-osprey-idx");
  });
  delete w.__ospreyPending;
}
