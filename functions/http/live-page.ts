import { CONTROLS_HINT, CONTROLS_HTML, CONTROLS_STYLE, controlsScript } from "./live-controls.ts";

const escapeHtml = (v: string) =>
  v.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch] as string);

/** A strict policy: the page's own nonce-tagged script and style, images and requests to its own origin only. */
export function livePageHeaders(nonce: string): Record<string, string> {
  return {
    "content-security-policy": `default-src 'none'; img-src 'self'; connect-src 'self'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'`,
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
  };
}

/**
 * The live view page of a run or a browser session: the newest frame, refreshed every second, and
 * a status line, both read from paths under its own URL (`/state`: {status, finished, purpose,
 * steps?}; `/frame`: a JPEG). The token in the URL is the only credential, so nothing else is loaded.
 * With `controls` (a browser session's, never a run's) the page also takes a person's input and
 * posts it to `/input` (live-controls.ts).
 */
export function livePage(title: string, alt: string, nonce: string, opts: { controls?: boolean } = {}): string {
  if (opts.controls) return controlledPage(title, alt, nonce);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<style nonce="${nonce}">body{margin:0;font:14px system-ui,sans-serif;background:#111;color:#eee}header{padding:8px 12px;display:flex;gap:16px;align-items:center}
#status{font-weight:600}#purpose{opacity:.8;flex:1;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}img{display:block;max-width:100%;margin:0 auto;background:#222}</style>
</head><body><header><span id="status">…</span><span id="purpose"></span><span id="steps"></span></header><img id="frame" alt="${escapeHtml(alt)}">
<script nonce="${nonce}">
const base = location.pathname.replace(/\\/$/, "");
const img = document.getElementById("frame");
async function tick() {
  try {
    const s = await (await fetch(base + "/state", { cache: "no-store" })).json();
    document.getElementById("status").textContent = s.status;
    document.getElementById("purpose").textContent = s.purpose ?? "";
    document.getElementById("steps").textContent = typeof s.steps === "number" ? s.steps + " steps" : "";
    img.src = base + "/frame?t=" + Date.now();
    if (s.finished) return;
  } catch {}
  setTimeout(tick, 1000);
}
tick();
</script></body></html>`;
}

function controlledPage(title: string, alt: string, nonce: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<style nonce="${nonce}">body{margin:0;font:14px system-ui,sans-serif;background:#111;color:#eee}header{padding:8px 12px;display:flex;gap:16px;align-items:center}
#status{font-weight:600}img{display:block;max-width:100%;margin:0 auto;background:#222}
${CONTROLS_STYLE}</style>
</head><body><header><span id="status">…</span></header>${CONTROLS_HTML}<div id="screen" tabindex="0"><img id="frame" alt="${escapeHtml(alt)}" draggable="false"></div>${CONTROLS_HINT}
<script nonce="${nonce}">${controlsScript()}</script></body></html>`;
}
