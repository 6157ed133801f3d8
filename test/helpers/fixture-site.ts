import type { IncomingMessage } from "node:http";
import { html, startOrigin } from "./origin.ts";

/**
 * The fixture website for agent tests, on two loopback origins (the second serves a cross-origin
 * frame and a "partner site"). Pages: a login form (POST), search with three pages of priced
 * products, a product page (size select, add to cart), a page whose overlay dialog covers it until
 * accepted, iframes (same- and cross-origin), a shadow-DOM widget, a slow page (?ms=), a
 * Cloudflare-style challenge (403, cf-mitigated: challenge), a confirm() dialog and an endless
 * chain of pages.
 */

export const LOGIN = { email: "ada@example.com", password: "lovelace" };

/** Products by search page; the cheapest of all is on page 2. */
export const PRODUCTS = [
  [
    { name: "Alpine tent", price: "$149.00" },
    { name: "Trail backpack", price: "$89.50" },
    { name: "Camp stove", price: "$45.00" },
  ],
  [
    { name: "Head lamp", price: "$24.00" },
    { name: "Water bottle", price: "$12.99" },
    { name: "Sleeping pad", price: "$39.95" },
  ],
  [
    { name: "Hiking poles", price: "$59.00" },
    { name: "Compass", price: "$18.25" },
    { name: "Rain jacket", price: "$120.00" },
  ],
];

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

const query = (req: IncomingMessage) => new URL(req.url ?? "/", "http://x").searchParams;

async function form(req: IncomingMessage): Promise<URLSearchParams> {
  let body = "";
  for await (const chunk of req) body += chunk;
  return new URLSearchParams(body);
}

const loginForm = (error = "") =>
  page(
    "Sign in",
    `<h1>Sign in</h1>${error ? `<p role="alert">${error}</p>` : ""}
    <form method="post" action="/login">
      <label for="email">Email</label> <input id="email" name="email" type="email">
      <label for="password">Password</label> <input id="password" name="password" type="password">
      <button type="submit">Sign in</button>
    </form>`,
  );

function search(q: string, n: number): string {
  const items = PRODUCTS[n - 1] ?? [];
  const link = (p: number, text: string) => `<a href="/search?q=${encodeURIComponent(q)}&page=${p}">${text}</a>`;
  return page(
    `Search: ${q} (page ${n})`,
    `<form action="/search"><input type="search" name="q" aria-label="Search products" value="${q}"><button>Search</button></form>
    <h1>Results for ${q}: page ${n} of 3</h1>
    <ul>${items.map((it) => `<li><a href="/product?name=${encodeURIComponent(it.name)}">${it.name}</a> <span>${it.price}</span></li>`).join("")}</ul>
    <nav aria-label="Pagination">${n > 1 ? link(n - 1, "Previous page") : ""} ${[1, 2, 3].map((p) => link(p, `Page ${p}`)).join(" ")}
    ${n < 3 ? link(n + 1, "Next page") : ""}</nav>`,
  );
}

const product = page(
  "Red kayak",
  `<header><span id="cart">Cart (0)</span></header>
  <h1>Red kayak</h1><p>Price: $349.00</p>
  <label for="size">Size</label>
  <select id="size"><option value="">Choose a size</option><option value="s">Small</option><option value="m">Medium</option><option value="l">Large</option></select>
  <button id="add">Add to cart</button>
  <p id="status"></p>
  <script>
    let count = 0;
    document.getElementById("add").onclick = () => {
      const size = document.getElementById("size");
      if (!size.value) { document.getElementById("status").textContent = "Please choose a size first"; return; }
      count += 1;
      document.getElementById("cart").textContent = "Cart (" + count + ")";
      document.getElementById("status").textContent = "Added Red kayak (" + size.options[size.selectedIndex].text + ") to the cart";
    };
  </script>`,
);

const modal = page(
  "Offers",
  `<h1>Offers</h1>
  <button id="terms" onclick="document.getElementById('overlay').style.display = 'flex'">Open terms</button>
  <button id="show" onclick="document.getElementById('offer').textContent = 'Today: 20% off all kayaks'">Show offers</button>
  <p id="offer"></p>
  <div id="overlay" role="dialog" aria-label="Terms of service"
    style="display:none; position:fixed; inset:0; background:rgba(0,0,0,.5); align-items:center; justify-content:center; z-index:10">
    <div style="background:#fff; padding:20px"><p>Please accept our terms to continue.</p>
      <button onclick="document.getElementById('overlay').style.display = 'none'">Accept terms</button></div>
  </div>`,
);

const frameForm = page(
  "Contact form",
  `<form onsubmit="event.preventDefault(); document.getElementById('thanks').textContent = 'Thanks, ' + document.getElementById('name').value">
    <label for="name">Your name</label> <input id="name"><button>Send</button></form><p id="thanks"></p>`,
);

const shadow = page(
  "Promo",
  `<h1>Promo</h1><promo-box></promo-box>
  <script>
    customElements.define("promo-box", class extends HTMLElement {
      constructor() {
        super();
        const root = this.attachShadow({ mode: "open" });
        root.innerHTML = '<label for="code">Promo code</label> <input id="code"> <button id="apply">Apply code</button> <p id="out"></p>';
        root.getElementById("apply").onclick = () => {
          root.getElementById("out").textContent = "Code " + root.getElementById("code").value + " applied";
        };
      }
    });
  </script>`,
);

const challenge = page(
  "Just a moment...",
  `<noscript>Enable JavaScript and cookies to continue</noscript><div id="challenge-running">Checking your browser before accessing the site.</div>
  <script>window._cf_chl_opt = { cType: "managed" };</script>`,
);

export interface AgentFixtureSite {
  url: string;
  origin2Url: string;
  close(): Promise<void>;
}

export async function startFixtureSite(): Promise<AgentFixtureSite> {
  const other = await startOrigin({
    "/widget": html(
      page("Coupon", `<p>Partner coupon</p><button onclick="this.textContent = 'Coupon claimed'">Claim coupon</button>`),
    ),
    "/partner": html(page("Partner site", "<h1>Partner site</h1><p>Welcome to our partner.</p>")),
  });
  const site = await startOrigin({
    "/": html(
      page(
        "Outdoor shop",
        `<h1>Outdoor shop</h1><ul>
        <li><a href="/login">Sign in</a></li><li><a href="/search?q=gear&page=1">Search gear</a></li>
        <li><a href="/product">Red kayak</a></li><li><a href="/offers">Offers</a></li>
        <li><a href="/slow?ms=8000">Slow page</a></li><li><a href="/dialog">Manage items</a></li>
        <li><a href="${other.url}/partner">Visit our partner</a></li>
        <li><a href="/search?q=tents&page=1" target="_blank">Catalog in a new tab</a></li></ul>`,
      ),
    ),
    "/login": async (req, res) => {
      if (req.method !== "POST") return html(loginForm())(req, res);
      const f = await form(req);
      const ok = f.get("email") === LOGIN.email && f.get("password") === LOGIN.password;
      html(
        ok ? page("Account", "<h1>Welcome, Ada</h1><p>Your account number is 4711.</p>") : loginForm("Wrong email or password"),
      )(req, res);
    },
    "/search": (req, res) => {
      const q = query(req);
      html(search(q.get("q") ?? "", Math.min(3, Math.max(1, Number(q.get("page")) || 1))))(req, res);
    },
    "/product": html(product),
    "/offers": html(modal),
    "/frame-form": html(frameForm),
    "/frames": html(
      page(
        "Frames",
        `<h1>Contact us</h1><iframe src="/frame-form" style="width:500px;height:150px"></iframe>
        <p>Partner coupon below</p><iframe src="${other.url}/widget" style="width:500px;height:120px"></iframe>`,
      ),
    ),
    "/shadow": html(shadow),
    "/slow": (req, res) => {
      const ms = Math.min(60_000, Number(query(req).get("ms")) || 1000);
      const timer = setTimeout(() => html(page("Slow", `<h1>Finally loaded after ${ms} ms</h1>`))(req, res), ms);
      res.on("close", () => clearTimeout(timer));
    },
    "/challenge": html(challenge, { "cf-mitigated": "challenge", server: "cloudflare", "cf-ray": "8a1b2c3d4e5f-LHR" }, 403),
    "/captcha": html(
      page("Verify", `<p>Please verify you are human to continue.</p><div class="g-recaptcha" data-sitekey="6Lc-test"></div>`),
    ),
    "/dialog": html(
      page(
        "Items",
        `<h1>Items</h1><button onclick="document.getElementById('r').textContent = confirm('Really delete the item?') ? 'Deleted' : 'Kept'">Delete item</button><p id="r"></p>`,
      ),
    ),
    /** What the site can tell about the browser (for browser_profile stealth). */
    "/whoami": (req, res) =>
      html(
        page(
          "Who am I",
          `<p id="ua">Header UA: ${String(req.headers["user-agent"] ?? "").replace(/[<>&]/g, "")}</p><p id="wd"></p>
          <script>document.getElementById("wd").textContent = "webdriver: " + navigator.webdriver + "; languages: " + navigator.languages.join(",");</script>`,
        ),
      )(req, res),
    /** A redirect to `to` (e.g. an address the run's policy refuses). */
    "/redirect": (req, res) => {
      res.writeHead(302, { location: query(req).get("to") ?? "/" });
      res.end();
    },
    "/infinite": (req, res) => {
      const n = Number(query(req).get("n")) || 1;
      html(
        page(`Item ${n}`, `<h1>Item ${n}</h1><p>There is always another item.</p><a href="/infinite?n=${n + 1}">Next item</a>`),
      )(req, res);
    },
  });
  return {
    url: site.url,
    origin2Url: other.url,
    close: async () => void (await Promise.all([site.close(), other.close()])),
  };
}
