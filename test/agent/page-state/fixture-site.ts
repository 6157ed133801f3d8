import { html, type Origin, startOrigin } from "../../helpers/origin.ts";

/**
 * The fixture website for page-state tests: two loopback origins (the second one only serves the
 * cross-origin frame). Every page is static HTML with a little inline script.
 */

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

const login = page(
  "Sign in",
  `<h1>Sign in to Example</h1>
  <form id="login" onsubmit="event.preventDefault(); document.getElementById('msg').textContent = 'Welcome back';">
    <label for="email">Email address</label> <input id="email" type="email" name="email" placeholder="you@example.com">
    <label for="pw">Password</label> <input id="pw" type="password" name="password">
    <label><input type="checkbox" id="remember" checked> Remember me</label>
    <button type="submit">Log in</button>
  </form>
  <p id="msg"></p>
  <a href="/forgot">Forgot your password?</a>`,
);

const results = ["Red kayak", "Blue canoe", "Green paddle board"];
const search = page(
  "Search",
  `<form role="search" action="/search"><input type="search" name="q" aria-label="Search products" value="boats">
  <button>Search</button></form>
  <h2>Results for boats</h2>
  <ol>${results.map((r, i) => `<li><a href="/product?id=${i}">${r}</a> from $${(i + 2) * 100}</li>`).join("")}</ol>
  <nav aria-label="Pagination"><a href="/search?page=1" aria-current="page">1</a> <a href="/search?page=2">2</a>
  <a href="/search?page=3">3</a> <a href="/search?page=2">Next page</a></nav>
  <p>Cited source [3] is not a marker.</p>`,
);

const product = page(
  "Red kayak",
  `<h1>Red kayak</h1><p>Price: $200</p>
  <label for="size">Size</label>
  <select id="size"><option>Small</option><option selected>Medium</option><option>Large</option></select>
  <label>Quantity <input type="number" id="qty" value="1" min="1"></label>
  <textarea aria-label="Gift note" placeholder="Write a note"></textarea>
  <button id="add" onclick="document.getElementById('cart').textContent = 'Added ' + document.getElementById('qty').value">Add to cart</button>
  <button disabled>Buy now</button>
  <p id="cart"></p>`,
);

const modal = page(
  "Modal",
  `<button id="behind">Behind the dialog</button>
  <dialog id="dlg"><p>Accept cookies?</p><button id="ok" onclick="document.getElementById('dlg').close()">Accept all</button></dialog>
  <script>document.getElementById('dlg').showModal()</script>`,
);

const hidden = page(
  "Hidden",
  `<button>Visible button</button>
  <button style="display:none">Display none button</button>
  <div style="display:none"><a href="/x">Link in hidden div</a></div>
  <button style="visibility:hidden">Invisible button</button>
  <button aria-hidden="true">Aria hidden button</button>
  <div aria-hidden="true"><a href="/y">Link under aria-hidden</a></div>
  <button style="width:0;height:0;padding:0;border:0;overflow:hidden">Zero size button</button>
  <div inert><button>Inert button</button></div>
  <input type="hidden" name="csrf" value="tok-123">
  <p hidden>Hidden paragraph text</p>
  <label class="fancy" style="cursor:pointer"><input type="checkbox" style="opacity:0;position:absolute;width:0;height:0"> Subscribe to news</label>`,
);

const long = page(
  "Long",
  `<h1>Top of the long page</h1>${Array.from({ length: 40 }, (_, i) => `<p style="height:100px">Section ${i + 1}</p>`).join("")}
  <a href="/end">Link at the bottom</a>`,
);

export interface FixtureSite {
  site: Origin;
  other: Origin;
  close(): Promise<void>;
}

export async function startFixtureSite(): Promise<FixtureSite> {
  // Loaded as 127.0.0.1:<other port> (cross-origin, same site: in the page's process) and as
  // widget.localhost:<other port> (cross-site: Chromium resolves *.localhost to loopback itself, and
  // site isolation puts that frame in its own renderer process).
  const other = await startOrigin({
    "/frame": (req, res) => {
      const who = req.url?.endsWith("?site") ? "Cross-site" : "Partner";
      html(
        page(
          who,
          `<p>${who} offers</p><button onclick="this.textContent = 'Claimed'">${who} claim</button><input aria-label="${who} code">`,
        ),
      )(req, res);
    },
  });
  const site = await startOrigin({
    "/login": html(login),
    "/search": html(search),
    "/product": html(product),
    "/modal": html(modal),
    "/hidden": html(hidden),
    "/long": html(long),
    "/inner": html(
      page("Inner", `<p>Same-origin frame text</p><button onclick="this.textContent = 'Inner clicked'">Inner button</button>`),
    ),
    "/frames": html(
      page(
        "Frames",
        `<h1>Frames page</h1><p>Before the frames</p>
        <iframe src="/inner" style="width:400px;height:120px"></iframe>
        <p>Between the frames</p>
        <iframe src="${other.url}/frame" style="width:400px;height:120px"></iframe>
        <p>Before the cross-site frame</p>
        <iframe src="http://widget.localhost:${other.port}/frame?site" style="width:400px;height:120px"></iframe>
        <p>After the frames</p>`,
      ),
    ),
    "/widgets": html(
      page(
        "Widgets",
        `<p>Shop widget:</p><shop-widget><span slot="title">Slotted title</span></shop-widget>
        <div id="card" onclick="this.querySelector('b').textContent = 'Card opened'" style="padding:8px">Open the card <b>closed</b></div>
        <div class="tile" style="cursor:pointer" id="tile" onmousedown="this.dataset.hit = '1'"><span>Tile with pointer</span></div>
        <script>
          customElements.define("shop-widget", class extends HTMLElement {
            constructor() {
              super();
              this.attachShadow({ mode: "open" }).innerHTML =
                '<h3><slot name="title"></slot></h3><button id="sb">Shadow buy</button><span id="out"></span>';
              this.shadowRoot.getElementById("sb").onclick = () => { this.shadowRoot.getElementById("out").textContent = "Shadow bought"; };
            }
          });
        </script>`,
      ),
    ),
  });
  return { site, other, close: async () => void (await Promise.all([site.close(), other.close()])) };
}
