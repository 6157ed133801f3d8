/** Small hand-written pages of each page type, with the furniture real sites put around content. */

const sentence = (topic: string, i: number) =>
  `The ${topic} note number ${i} explains, in plain words, how the ${topic} works and why it matters to readers.`;
export const para = (topic: string, n = 4) => `<p>${Array.from({ length: n }, (_, i) => sentence(topic, i + 1)).join(" ")}</p>`;

const nav = `<header class="site-header"><a href="/">Home</a><nav><ul><li><a href="/news">News</a></li><li><a href="/sport">Sport</a></li><li><a href="/about">About us</a></li></ul></nav></header>`;
const footer = `<footer><p>Copyright 2024 Example Media. All rights reserved.</p><a href="/privacy">Privacy policy</a></footer>`;
const cookie = `<div class="cookie-banner"><p>We use cookies to improve your experience. Accept all cookies?</p></div>`;
const sidebar = `<aside class="sidebar"><h3>Most read</h3><ul><li><a href="/a">Celebrity spotted in town</a></li><li><a href="/b">Ten tips for gardens</a></li><li><a href="/c">Weather turns cold</a></li></ul></aside>`;

export const articlePage = `<!doctype html><html lang="en"><head><title>Canyon story</title><meta property="og:type" content="article"></head><body>
${nav}${cookie}
<main><article>
  <h1>How rivers carve canyons</h1>
  <p class="byline">By Jane Doe</p>
  ${para("canyon")}${para("erosion")}
  <div class="share-bar"><a href="https://twitter.com/share">Share on Twitter</a><a href="https://facebook.com/share">Share on Facebook</a></div>
  ${para("sediment")}
  <div class="related-posts"><h3>Related articles</h3><ul><li><a href="/x">Mountains rise slowly</a></li><li><a href="/y">Deltas and the sea</a></li></ul></div>
</article>
<section id="comments" class="comments"><h2>Comments</h2><div class="comment"><p>First! Great article, I loved every word of it and will share it with my friends.</p></div></section>
</main>${sidebar}${footer}</body></html>`;

const post = (user: string, topic: string) =>
  `<div class="message"><div class="message-user"><a href="/u/${user}">${user}</a></div><div class="message-body">${para(topic, 2)}</div></div>`;
export const forumPage = `<!doctype html><html><head><title>Thread</title></head><body>${nav}
<div class="thread"><h1>Which tent for winter camping?</h1>
${post("alice", "tent")}${post("bob", "sleeping bag")}${post("carol", "stove")}
<div class="comments-list">${post("dave", "snow anchor")}</div>
</div>${sidebar}${footer}</body></html>`;

export const productPage = `<!doctype html><html><head><title>Trail Runner 2</title><script type="application/ld+json">{"@type":"Product","name":"Trail Runner 2"}</script></head><body>${nav}${cookie}
<main><div class="product">
  <h1>Trail Runner 2</h1><div class="price">$129.00</div>
  <div class="description">${para("shoe sole", 3)}</div>
  <table class="specs"><tr><th>Weight</th><td>280 g</td></tr><tr><th>Drop</th><td>6 mm</td></tr><tr><th>Upper</th><td>Recycled mesh</td></tr></table>
</div>
<div class="recommended-products"><h2>You may also like</h2><ul><li><a href="/p/1">Road Runner</a></li><li><a href="/p/2">Hiker Pro</a></li></ul></div>
</main>${footer}</body></html>`;

const card = (name: string, price: string) =>
  `<li class="card"><a href="/p/${name.toLowerCase().replace(/ /g, "-")}"><h3>${name}</h3></a><span class="price">${price}</span></li>`;
export const listingPage = `<!doctype html><html><head><title>Coffee</title></head><body>${nav}
<main><h1>All coffee</h1><p>Twelve roasts, from light to very dark.</p>
<ul class="grid">${card("Morning Blend", "$12.99")}${card("Dark Roast Supreme", "$14.99")}${card("Decaf Colombia", "$13.49")}${card("Espresso Forte", "$15.99")}${card("Ethiopia Natural", "$16.99")}${card("Holiday Spice", "$11.99")}</ul>
</main>${footer}</body></html>`;

export const docsPage = `<!doctype html><html><head><title>Config | Docs</title></head><body>${nav}
<div class="layout"><nav class="docs-sidebar"><ul><li><a href="/docs/install">Install</a></li><li><a href="/docs/config">Config</a></li><li><a href="/docs/api">API</a></li></ul></nav>
<div class="docs-content"><h1>Configuration</h1>${para("config file", 3)}
<pre><code class="language-json">{ "port": 8080, "logLevel": "info" }</code></pre>
<h2>Options</h2><table><thead><tr><th>Option</th><th>Default</th><th>Meaning</th></tr></thead><tbody><tr><td>port</td><td>8080</td><td>Port to listen on</td></tr><tr><td>logLevel</td><td>info</td><td>Verbosity of logs</td></tr></tbody></table>
${para("environment variable", 2)}</div></div>${footer}</body></html>`;

export const servicePage = `<!doctype html><html><head><title>Plumbing</title></head><body>${nav}
<main><section class="hero"><h1>Emergency plumbing, day and night</h1><p>Licensed plumbers at your door within the hour.</p></section>
<section class="services"><h2>What we fix</h2><ul><li>Burst pipes and leaks</li><li>Blocked drains</li><li>Boiler repairs</li></ul>${para("plumbing service", 2)}</section>
<section class="pricing"><h2>Prices</h2><p>Call-out from $79. Hourly rate $65 after the first hour.</p></section></main>
<div class="newsletter-signup"><p>Subscribe to our newsletter for discounts.</p></div>${footer}</body></html>`;
