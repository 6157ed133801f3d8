import { LIVE_INPUT_LIMITS, LIVE_KEYS } from "../sessions/live-input.schemas.ts";

/**
 * The controls of a browser session's live view (live-page.ts with `controls`): an address bar
 * with back, forward and reload, and the frame (in the focusable #screen) as an input surface. Clicks and the wheel are
 * mapped from the shown image to the frame's own pixels (the page's CSS pixels) and posted to
 * `<page>/input`, one request at a time so events keep their order; typed characters are gathered
 * for 50 ms into one `type` event; named keys go as `key` events. After input, frames are fetched
 * every 150 ms for 2.5 s, then every second. No inline handlers: the nonce-tagged script adds its
 * listeners, so the page keeps its strict content security policy. Nothing from the session is put
 * into markup (messages are set as text).
 */

export const CONTROLS_STYLE = `#bar{display:flex;gap:6px;padding:0 12px 8px}#bar button{background:#333;color:#eee;border:1px solid #555;border-radius:4px;padding:4px 10px;font:inherit;cursor:pointer}
#url{flex:1;min-width:0;background:#222;color:#eee;border:1px solid #555;border-radius:4px;padding:4px 8px;font:inherit}#note{margin:0 12px 8px;min-height:1.2em;color:#fc8}
#screen{outline:none;user-select:none}#frame{border:0}#screen:focus #frame{box-shadow:0 0 0 2px #5ad}.hint{opacity:.6;text-align:center;margin:6px}.ended #bar,.ended .hint{opacity:.4}`;

export const CONTROLS_HTML = `<form id="bar" autocomplete="off"><button type="button" id="back" aria-label="Back" title="Back">&larr;</button><button type="button" id="forward" aria-label="Forward" title="Forward">&rarr;</button><button type="button" id="reload" aria-label="Reload" title="Reload">&#8635;</button><input id="url" name="url" type="text" inputmode="url" spellcheck="false" placeholder="https://" aria-label="Address"><button type="submit">Go</button></form><p id="note" role="status"></p>`;

export const CONTROLS_HINT = `<p class="hint">Click the picture to use the page; while it has focus, your typing and keys go to the page.</p>`;

/** The page's script: frame refresh, state polling, and input. Written without backslashes (it sits in a template literal). */
export function controlsScript(): string {
  return `
const base = location.pathname.replace(/[/]$/, "");
const KEYS = new Set(${JSON.stringify(LIVE_KEYS)});
const TEXT_MAX = ${LIVE_INPUT_LIMITS.textMax};
const screen = document.getElementById("screen");
let img = document.getElementById("frame");
const note = document.getElementById("note");
const urlBox = document.getElementById("url");
let finished = false, loadingSince = 0, fastUntil = 0, frameTimer = 0;

function frameSoon(ms) { clearTimeout(frameTimer); frameTimer = setTimeout(loadFrame, ms); }
// Each frame loads into an image of its own and replaces the shown one once it has loaded, so the
// picture (and the size clicks are mapped by) never goes blank while a frame loads or is missing.
function loadFrame() {
  if (finished || (loadingSince && Date.now() - loadingSince < 5000)) return;
  loadingSince = Date.now();
  const next = new Image();
  next.addEventListener("load", () => {
    next.id = "frame";
    next.alt = img.alt;
    next.draggable = false;
    img.replaceWith(next);
    img = next;
    frameDone();
  });
  next.addEventListener("error", frameDone);
  next.src = base + "/frame?t=" + Date.now();
}
function frameDone() { loadingSince = 0; frameSoon(Date.now() < fastUntil ? 150 : 1000); }

async function tick() {
  try {
    const s = await (await fetch(base + "/state", { cache: "no-store" })).json();
    document.getElementById("status").textContent = s.status;
    if (s.finished) {
      finished = true;
      document.body.classList.add("ended");
      for (const el of document.querySelectorAll("#bar button, #bar input")) el.disabled = true;
      note.textContent = "The session has ended.";
      return;
    }
  } catch {}
  setTimeout(tick, 2000);
}

let queue = Promise.resolve();
function post(event) {
  queue = queue.then(async () => {
    if (finished) return;
    try {
      const r = await fetch(base + "/input", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(event),
        cache: "no-store",
      });
      if (r.ok) note.textContent = "";
      else {
        const body = await r.json().catch(() => null);
        note.textContent = (body && body.error && body.error.message) || "The input was refused (HTTP " + r.status + ").";
      }
    } catch {
      note.textContent = "The input could not be sent.";
    }
    fastUntil = Date.now() + 2500;
    frameSoon(50);
  });
}

let pending = "", typeTimer = 0;
function flush() {
  clearTimeout(typeTimer);
  if (!pending) return;
  const text = pending;
  pending = "";
  post({ type: "type", text });
}
function typeText(text) {
  for (const ch of text) {
    if (pending.length + ch.length > TEXT_MAX) flush();
    pending += ch;
  }
  clearTimeout(typeTimer);
  typeTimer = setTimeout(flush, 50);
}
function send(event) { flush(); post(event); }

function mods(e) {
  const held = [];
  if (e.altKey) held.push("Alt");
  if (e.ctrlKey) held.push("Control");
  if (e.metaKey) held.push("Meta");
  if (e.shiftKey) held.push("Shift");
  return held;
}
function point(e) {
  const r = img.getBoundingClientRect();
  if (!img.naturalWidth || !r.width || !r.height) return null;
  if (e.clientX < r.left || e.clientX > r.right || e.clientY < r.top || e.clientY > r.bottom) return null;
  const sx = img.naturalWidth / r.width, sy = img.naturalHeight / r.height;
  const x = Math.max(0, Math.min(img.naturalWidth - 1, Math.round((e.clientX - r.left) * sx)));
  const y = Math.max(0, Math.min(img.naturalHeight - 1, Math.round((e.clientY - r.top) * sy)));
  return { x, y, sx, sy };
}
function click(e, button) {
  e.preventDefault();
  screen.focus();
  const p = point(e);
  if (!p) return;
  const clickCount = Math.min(3, Math.max(1, e.detail || 1));
  send({ type: "click", x: p.x, y: p.y, button, click_count: clickCount, modifiers: mods(e) });
}
screen.addEventListener("mousedown", (e) => e.preventDefault());
screen.addEventListener("click", (e) => click(e, "left"));
screen.addEventListener("auxclick", (e) => { if (e.button === 1) click(e, "middle"); });
screen.addEventListener("contextmenu", (e) => click(e, "right"));

let wheel = null;
screen.addEventListener("wheel", (e) => {
  e.preventDefault();
  const p = point(e);
  if (!p) return;
  const unit = e.deltaMode === 1 ? 40 : e.deltaMode === 2 ? img.naturalHeight : 1;
  if (!wheel) {
    wheel = { x: p.x, y: p.y, dx: 0, dy: 0 };
    setTimeout(() => {
      const w = wheel;
      wheel = null;
      const bound = (v) => Math.max(-10000, Math.min(10000, Math.round(v)));
      if (w.dx || w.dy) send({ type: "scroll", x: w.x, y: w.y, dx: bound(w.dx), dy: bound(w.dy) });
    }, 60);
  }
  wheel.dx += e.deltaX * unit * p.sx;
  wheel.dy += e.deltaY * unit * p.sy;
}, { passive: false });

screen.addEventListener("keydown", (e) => {
  if (e.isComposing) return;
  if (KEYS.has(e.key)) {
    e.preventDefault();
    send({ type: "key", key: e.key, modifiers: mods(e) });
    return;
  }
  const shortcut = (e.ctrlKey || e.metaKey || e.altKey) && !e.getModifierState("AltGraph");
  if (!shortcut && [...e.key].length === 1) {
    e.preventDefault();
    typeText(e.key);
  }
});
screen.addEventListener("paste", (e) => {
  const text = e.clipboardData ? e.clipboardData.getData("text/plain") : "";
  if (!text) return;
  e.preventDefault();
  typeText(text);
});

document.getElementById("bar").addEventListener("submit", (e) => {
  e.preventDefault();
  let url = urlBox.value.trim();
  if (!url) return;
  if (!/^https?:/i.test(url)) {
    if (/^[a-z][a-z0-9+.-]*:(?![0-9])/i.test(url)) {
      note.textContent = "Only http:// and https:// addresses can be opened.";
      return;
    }
    url = "https://" + url;
  }
  send({ type: "navigate", url });
  screen.focus();
});
for (const action of ["back", "forward", "reload"]) {
  document.getElementById(action).addEventListener("click", () => send({ type: "history", action }));
}

tick();
loadFrame();
`;
}
