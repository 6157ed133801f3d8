/**
 * Tokens per finished task, whole-page page states against viewport-first ones (the agent's
 * `stateScope`), on fixture tasks: the agent fixture site's short pages (log in, page through
 * search results, add to a cart, get past a dialog, a new tab) and long pages served here (an
 * article with its links in a footer, a 60-product catalogue, a form above long terms). Each task
 * runs through the real agent loop (runAgent, real Chromium, the real OpenAI provider) against the
 * scripted model server, whose script plays a model that looks for what the next step needs in
 * the page state it was sent: found, it acts; not found, it calls read_page when it looks for an
 * element and the state says elements lie outside it, else scrolls down; after two scrolls past the
 * end it gives up. A request's tokens are the o200k_base count of its messages and tool definitions
 * (what a provider bills as input); a finished task is one that completes with the expected result.
 */
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import type { AgentTask } from "../../containers/agent/agent.types.ts";
import type { StateScope } from "../../containers/agent/page-state/index.ts";
import { isExecutable } from "../../containers/browser/chromium-process.ts";
import { call, provider, run, stateText, task } from "../agent/loop/harness.ts";
import { LOGIN, startFixtureSite } from "../helpers/fixture-site.ts";
import { html, startOrigin } from "../helpers/origin.ts";
import { type ScriptedReply, type ScriptTurn, startScriptedModel } from "../helpers/scripted-model.ts";
import { CHROME, launchTestBrowser } from "../helpers/test-session.ts";

const out = (s: string) => process.stdout.write(`${s}\n`);

/** One step of a task: what to look for in the state (an element's index in group 1, or text), and what to do then. */
interface Need {
  /** Looks for an element (read_page can bring it) or for text (only scrolling can). */
  kind: "element" | "text";
  find: RegExp;
  act: (m: RegExpExecArray) => ScriptedReply;
}

interface BenchTask {
  name: string;
  path: (urls: { site: string; long: string }) => string;
  goal: string;
  needs: Need[];
  expect: unknown;
}

const el = (find: RegExp, act: (i: number) => ScriptedReply): Need => ({
  kind: "element",
  find,
  act: (m) => act(Number(m[1])),
});
const text = (find: RegExp, act: (m: RegExpExecArray) => ScriptedReply): Need => ({ kind: "text", find, act });
const done = (result: unknown) => call("done", { success: true, result });

const TASKS: BenchTask[] = [
  {
    name: "log in (short form)",
    path: (u) => `${u.site}/login`,
    goal: "Sign in and tell me the greeting",
    needs: [
      el(/Email \[(\d+) textbox:email/, (i) => call("type", { index: i, text: LOGIN.email })),
      el(/Password \[(\d+) textbox:password/, (i) => call("type", { index: i, text: LOGIN.password })),
      el(/\[(\d+) button\]Sign in/, (i) => call("click", { index: i })),
      text(/Welcome, (\w+)/, (m) => done({ greeting: `Welcome, ${m[1]}` })),
    ],
    expect: { greeting: "Welcome, Ada" },
  },
  {
    name: "search results, page 2",
    path: (u) => `${u.site}/search?q=gear&page=1`,
    goal: "Find the cheapest product on page 2",
    needs: [
      el(/\[(\d+) link\]Next page/, (i) => call("click", { index: i })),
      text(/page 2 of 3[\s\S]*Water bottle \$(\d+\.\d\d)/, (m) => done({ name: "Water bottle", price: Number(m[1]) })),
    ],
    expect: { name: "Water bottle", price: 12.99 },
  },
  {
    name: "product size and cart",
    path: (u) => `${u.site}/product`,
    goal: "Add a large red kayak to the cart",
    needs: [
      el(/Size \[(\d+) combobox/, (i) => call("select_option", { index: i, option: "Large" })),
      el(/\[(\d+) button\]Add to cart/, (i) => call("click", { index: i })),
      text(/Cart \((\d)\)/, (m) => done({ cart: Number(m[1]) })),
    ],
    expect: { cart: 1 },
  },
  {
    name: "dialog in the way",
    path: (u) => `${u.site}/offers`,
    goal: "Read today's offer",
    needs: [el(/\[(\d+) button\]Show offers/, (i) => call("click", { index: i })), text(/Today: (.+)/, (m) => done(m[1]))],
    expect: "20% off all kayaks",
  },
  {
    name: "new tab",
    path: (u) => `${u.site}/`,
    goal: "Open the catalog and tell me what it shows",
    needs: [
      el(/\[(\d+) link\]Catalog in a new tab/, (i) => call("click", { index: i })),
      text(/Results for (\w+)/, (m) => done(m[1])),
    ],
    expect: "tents",
  },
  {
    name: "long article: footer link",
    path: (u) => `${u.long}/article`,
    goal: "Find the contact page and tell me the email address",
    needs: [el(/\[(\d+) link\]Contact us/, (i) => call("click", { index: i })), text(/write to (\S+@\S+)/, (m) => done(m[1]))],
    expect: "hello@example.test",
  },
  {
    name: "long article: byline at the top",
    path: (u) => `${u.long}/article`,
    goal: "Who wrote this article?",
    needs: [text(/By ([A-Z]\w+ [A-Z]\w+)/, (m) => done(m[1]))],
    expect: "Jane Doe",
  },
  {
    name: "catalogue: item far down",
    path: (u) => `${u.long}/catalog`,
    goal: "Add the Compass to the cart",
    needs: [
      el(/\[(\d+) button "Add Compass to cart"/, (i) => call("click", { index: i })),
      text(/Cart \((\d+)\)/, (m) => (m[1] === "1" ? done({ cart: 1 }) : done({ cart: Number(m[1]) }))),
    ],
    expect: { cart: 1 },
  },
  {
    name: "catalogue: price near the top",
    path: (u) => `${u.long}/catalog`,
    goal: "What does the Head lamp cost?",
    needs: [text(/Head lamp\S*\s*\$(\d+\.\d\d)/, (m) => done(Number(m[1])))],
    expect: 160.5,
  },
  {
    name: "form above long terms",
    path: (u) => `${u.long}/signup`,
    goal: "Sign up as Grace",
    needs: [
      el(/Your name \[(\d+) textbox/, (i) => call("type", { index: i, text: "Grace", submit: true })),
      text(/Thanks, (\w+)/, (m) => done(m[1])),
    ],
    expect: "Grace",
  },
];

const PRODUCTS = [
  "Alpine tent",
  "Trail backpack",
  "Camp stove",
  "Sleeping bag",
  "Head lamp",
  "Water filter",
  "Sleeping pad",
  "Trekking poles",
];
const words = (n: number, seed: number) =>
  Array.from(
    { length: n },
    (_, i) => ["river", "ridge", "camp", "trail", "summit", "valley", "pine", "stone"][(i * 7 + seed) % 8],
  ).join(" ");
const doc = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

/** Long pages: a footer far below, a 60-item catalogue, a form above long terms. */
async function startLongSite() {
  const nav = `<nav>${["Home", "Trips", "Gear", "Guides", "Maps", "Blog", "Shop", "About"].map((n) => `<a href="/${n.toLowerCase()}">${n}</a>`).join(" ")}</nav>`;
  const article = doc(
    "Field notes",
    `${nav}<h1>Field notes from the ridge</h1><p>By Jane Doe, 3 May</p>
    ${Array.from({ length: 40 }, (_, i) => `${i % 8 === 0 ? `<h2>Part ${i / 8 + 1}</h2>` : ""}<p>${words(60, i)}. <a href="/notes/${i}">More on this</a></p>`).join("\n")}
    <footer><a href="/contact">Contact us</a> <a href="/privacy">Privacy</a> <a href="/terms">Terms</a> <a href="/jobs">Jobs</a></footer>`,
  );
  const items = Array.from({ length: 60 }, (_, i) =>
    i === 44
      ? "Compass"
      : `${PRODUCTS[i % PRODUCTS.length]}${i >= PRODUCTS.length ? ` ${Math.floor(i / PRODUCTS.length) + 1}` : ""}`,
  );
  const catalog = doc(
    "Catalogue",
    `<header style="position:sticky;top:0;background:#fff"><span id="cart">Cart (0)</span></header>${nav}<h1>All gear</h1>
    <ul>${items.map((name, i) => `<li style="height:60px"><a href="/item/${i}">${name}</a> $${(12 + ((i * 37) % 200) + 0.5).toFixed(2)} <button aria-label="Add ${name} to cart" onclick="document.getElementById('cart').textContent = 'Cart (' + (++window.n || (window.n = 1)) + ')'">Add</button></li>`).join("")}</ul>`,
  );
  const signup = doc(
    "Sign up",
    `<h1>Join the club</h1><form onsubmit="event.preventDefault(); document.getElementById('thanks').textContent = 'Thanks, ' + document.getElementById('name').value">
    <label for="name">Your name</label> <input id="name"><button>Join</button></form><p id="thanks"></p>
    <h2>Terms</h2>${Array.from({ length: 30 }, (_, i) => `<p>${words(80, i + 3)}. <a href="/terms#${i}">Section ${i + 1}</a></p>`).join("")}`,
  );
  return startOrigin({
    "/article": html(article),
    "/catalog": html(catalog),
    "/signup": html(signup),
    "/contact": html(doc("Contact", "<h1>Contact</h1><p>Questions? write to hello@example.test</p>")),
  });
}

/** A model that looks for each need in turn; see the top of this file. */
function policy(t: BenchTask, scope: StateScope, errors: string[]): (turn: ScriptTurn) => ScriptedReply {
  let at = 0;
  let widened = false;
  let pastEnd = 0;
  return (turn) => {
    const need = t.needs[at];
    if (!need) {
      errors.push(`${t.name}: no step left`);
      return call("done", { success: false, message: "script ended" });
    }
    const state = stateText(turn);
    const m = need.find.exec(state.slice(state.lastIndexOf("Current page state:")));
    if (m) {
      at += 1;
      widened = false;
      pastEnd = 0;
      return need.act(m);
    }
    if (need.kind === "element" && scope === "viewport" && !widened && /px (below|above) not shown: [1-9]/.test(state)) {
      widened = true;
      return call("read_page", {});
    }
    const below = /(\d+)px below/.exec(state);
    if (below && Number(below[1]) > 0) return call("scroll", { direction: "down", amount: 1 });
    if (++pastEnd > 1) return call("done", { success: false, message: "not found" });
    return call("wait_for", { seconds: 0.5 });
  };
}

/** o200k_base tokens of one model request: every message's text and the tool definitions. */
const requestTokens = (turn: ScriptTurn) =>
  countTokens(turn.messages.map((m) => m.text).join("\n")) + countTokens(JSON.stringify(turn.tools));

export async function agentTasksBench(): Promise<Record<string, unknown>> {
  if (!isExecutable(CHROME)) {
    out(`tasks skipped: no Chromium at ${CHROME} (set CHROME_PATH)`);
    return {};
  }
  const [browser, site, long, server] = await Promise.all([
    launchTestBrowser(),
    startFixtureSite(),
    startLongSite(),
    startScriptedModel([]),
  ]);
  const scopes: StateScope[] = ["page", "viewport"];
  const rows: { task: string; scope: StateScope; finished: boolean; steps: number; requests: number; tokens: number }[] = [];
  try {
    for (const t of TASKS) {
      for (const scope of scopes) {
        const errors: string[] = [];
        server.turns.length = 0;
        server.setScript(policy(t, scope, errors));
        const session = await browser.open();
        try {
          const agentTask: AgentTask = task(t.path({ site: site.url, long: long.url }), t.goal, { stateScope: scope });
          const r = await run(agentTask, { model: provider(server, "openai"), session });
          const finished = r.outcome.status === "COMPLETED" && JSON.stringify(r.outcome.result) === JSON.stringify(t.expect);
          const tokens = server.turns.reduce((sum, turn) => sum + requestTokens(turn), 0);
          rows.push({ task: t.name, scope, finished, steps: r.steps.length, requests: server.turns.length, tokens });
          if (!finished)
            out(`  not finished: ${t.name} (${scope}): ${JSON.stringify(r.outcome).slice(0, 200)} ${errors.join("; ")}`);
        } finally {
          await session.close();
        }
      }
    }
  } finally {
    await Promise.all([browser.close(), site.close(), long.close(), server.close()]);
  }
  out(`\n## Tokens per finished task: whole-page vs viewport-first page states (${TASKS.length} fixture tasks, scripted model)`);
  out("task                               page: steps  tokens   viewport: steps  tokens   ratio");
  for (const t of TASKS) {
    const p = rows.find((r) => r.task === t.name && r.scope === "page");
    const v = rows.find((r) => r.task === t.name && r.scope === "viewport");
    if (!p || !v) continue;
    const cell = (r: typeof p) => `${String(r.steps).padStart(5)} ${String(r.tokens).padStart(7)}${r.finished ? " " : "✗"}`;
    out(`${t.name.padEnd(34)} ${cell(p)}            ${cell(v)}  ${(v.tokens / p.tokens).toFixed(2).padStart(6)}`);
  }
  const summary: Record<string, unknown> = { tasks: TASKS.length };
  for (const scope of scopes) {
    const mine = rows.filter((r) => r.scope === scope);
    const fin = mine.filter((r) => r.finished);
    const tokens = mine.reduce((s, r) => s + r.tokens, 0);
    const perFinished = fin.length ? Math.round(tokens / fin.length) : null;
    summary[scope] = {
      finished: fin.length,
      tokens,
      tokensPerFinishedTask: perFinished,
      steps: mine.reduce((s, r) => s + r.steps, 0),
    };
    out(
      `${scope.padEnd(9)} finished ${fin.length}/${mine.length}, ${tokens} tokens in all, ${perFinished ?? "-"} per finished task, ${mine.reduce((s, r) => s + r.steps, 0)} steps`,
    );
  }
  return summary;
}
