import type { IncomingMessage, ServerResponse } from "node:http";
import { html, type Origin, startOrigin } from "../../helpers/origin.ts";

/**
 * Pages for the settle tests (loopback): results an XHR fills in after a delay, a page with
 * background traffic (a long-poll that the server holds open and a status poll every 100 ms), a
 * link to a slow document and a fetch followed by a navigation, a single-page-app link, a button
 * that does nothing, and a ticker that never stops changing the DOM. For the actions themselves: a
 * document that renders its view in steps after DOMContentLoaded, a button far below the fold of a
 * smoothly scrolling page, and fields that log every key event (and a labelled checkbox). `counts` tells how often each API
 * endpoint was called.
 */

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

/** A button whose click fetches /api/results (answered after `ms`) and lists them. */
const resultsButton = (ms: number) =>
  `<button id="load" onclick="fetch('/api/results?ms=${ms}').then((r) => r.json()).then((items) => {
      document.getElementById('results').innerHTML = items.map((x) => '<li>' + x + '</li>').join('');
    })">Load results</button><ul id="results"></ul>`;

const background = `<script>
  (function poll() { fetch('/api/updates').then(() => poll(), () => setTimeout(poll, 1000)); })();
  setInterval(() => fetch('/api/status?t=' + Date.now()), 100);
</script>`;

export interface SettleSite {
  url: string;
  counts: Map<string, number>;
  close(): Promise<void>;
}

const query = (req: IncomingMessage) => new URL(req.url ?? "/", "http://x").searchParams;

export async function startSettleSite(): Promise<SettleSite> {
  const counts = new Map<string, number>();
  const held = new Set<ServerResponse>();
  const count = (name: string) => counts.set(name, (counts.get(name) ?? 0) + 1);
  const later = (res: ServerResponse, ms: number, send: () => void) => {
    const timer = setTimeout(send, ms);
    res.on("close", () => clearTimeout(timer));
  };
  const origin: Origin = await startOrigin({
    "/xhr": html(page("Results", `<h1>Search</h1>${resultsButton(200)}`)),
    "/background": html(
      page(
        "Busy page",
        `<h1>Busy page</h1><button id="note" onclick="document.getElementById('out').textContent = 'Note shown'">Show note</button>
        <p id="out"></p>${resultsButton(200)}${background}`,
      ),
    ),
    "/nav": html(
      page(
        "Links",
        `<a href="/slow-doc?ms=400">Slow document</a>
        <button onclick="fetch('/api/results?ms=150').then(() => { location.href = '/slow-doc?ms=100'; })">Check, then go</button>
        <a href="/slow-doc?ms=300" target="_blank">In a new tab</a>
        <form method="post" action="/slow-doc?ms=200"><input name="q" value="x"><button>Send the form</button></form>
        <select aria-label="Jump to" onchange="location.href = '/slow-doc?ms=150'"><option>Stay</option><option>Go</option></select>`,
      ),
    ),
    "/spa": html(
      page(
        "App home",
        `<a id="go" href="/spa/page2">Page two</a><main id="view"><p>Home view</p></main>
        <script>
          document.getElementById('go').onclick = (e) => {
            e.preventDefault();
            fetch('/api/results?ms=150').then((r) => r.json()).then((items) => {
              history.pushState({}, '', '/spa/page2');
              document.getElementById('view').innerHTML = '<h2>Page two</h2><p>' + items.join(', ') + '</p>';
            });
          };
        </script>`,
      ),
    ),
    "/late": html(page("Late", `<a href="/late/view">Late view</a>`)),
    "/late/view": html(
      page(
        "Late view",
        `<main id="view"><p>Loading</p></main>
        <script>
          // In steps 20 ms apart from DOMContentLoaded on (well inside the quiet window, even with timers
          // running late on a busy machine), the last one about 160 ms after it.
          const view = document.getElementById('view');
          let step = 0;
          const next = () => {
            step += 1;
            view.innerHTML = step < 8 ? '<p>Rendering step ' + step + '</p>' : '<h2>Rendered after load</h2>';
            if (step < 8) setTimeout(next, 20);
          };
          document.addEventListener('DOMContentLoaded', () => setTimeout(next, 20));
        </script>`,
      ),
    ),
    "/far": html(
      `<!doctype html><html lang="en" style="scroll-behavior: smooth"><head><meta charset="utf-8"><title>Far</title></head>
        <body><p>Top of the page</p><div style="height: 3000px"></div>
        <div style="overflow: auto; height: 120px"><div style="height: 600px"></div>
          <button onclick="document.getElementById('out').textContent = 'Far button clicked'">Far button</button></div>
        <p id="out"></p></body></html>`,
    ),
    "/keys": html(
      page(
        "Keys",
        `<input aria-label="Logged field" value="old text"><textarea aria-label="Notes"></textarea>
        <label><input type="checkbox" id="agree"> I agree</label>
        <p id="log"></p><p id="inputs">0</p>
        <script>
          const log = [];
          let inputs = 0;
          for (const f of document.querySelectorAll('input, textarea')) {
            f.addEventListener('keydown', (e) => { log.push(e.key); document.getElementById('log').textContent = JSON.stringify(log); });
            f.addEventListener('input', () => { document.getElementById('inputs').textContent = String(++inputs); });
          }
        </script>`,
      ),
    ),
    "/idle": html(page("Idle", `<button id="nothing">Does nothing</button><p>Static text</p>`)),
    "/framed": html(page("Framed", `<p>Around the frame</p><iframe src="/idle"></iframe>`)),
    "/ticker": html(
      page(
        "Ticker",
        `<button id="nothing">Does nothing</button><p id="tick">0</p>
        <script>let n = 0; setInterval(() => { document.getElementById('tick').textContent = String(++n); }, 30);</script>`,
      ),
    ),
    "/slow-doc": (req, res) => {
      const ms = Math.min(5_000, Number(query(req).get("ms")) || 100);
      later(res, ms, () => html(page("Arrived", `<h1>Arrived after ${ms} ms</h1>`))(req, res));
    },
    "/api/results": (req, res) => {
      count("results");
      const ms = Math.min(5_000, Number(query(req).get("ms")) || 0);
      later(res, ms, () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(["Result A", "Result B"]));
      });
    },
    "/api/updates": (_req, res) => {
      // A long-poll: held open until the test ends (the page re-polls when it returns).
      count("updates");
      held.add(res);
      res.on("close", () => held.delete(res));
    },
    "/api/status": (_req, res) => {
      count("status");
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"ok":true}');
    },
  });
  return {
    url: origin.url,
    counts,
    close: async () => {
      for (const res of held) res.destroy();
      await origin.close();
    },
  };
}
