import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string) => extractMainText(html, "https://shop.example.com/p/wool-runner").text;
const PRODUCT_LD = `<script type="application/ld+json">{"@type":"Product","name":"Wool Runner"}</script>`;
const takeover = `<div class="z-takeover fixed inset-0 overflow-y-auto"><div class="flex min-h-screen items-center justify-center">
  <div class="px-6"><h3>Notify me when back in stock</h3><p>Once limited edition colors sell out, they are gone for good. Sign up and we will let you know.</p>
  <p>It's official: we got your info, and we're rooting for you.</p></div></div></div>`;

describe("layers fixed over the whole screen", () => {
  it("drops a takeover modal ('fixed inset-0') beside the product, keeps the product", () => {
    const t = text(`<html><head>${PRODUCT_LD}</head><body><main><div class="product">
      <h1>Wool Runner</h1><div class="price">$98.00</div>${para("wool", 3)}${takeover}</div></main></body></html>`);
    for (const want of ["Wool Runner", "how the wool works"]) expect(t).toContain(want);
    for (const gone of ["Notify me when back in stock", "rooting for you"]) expect(t).not.toContain(gone);
  });

  it("keeps an app shell that fixes its whole frame, and a block that is only fixed or only inset", () => {
    const shell = `<html><head>${PRODUCT_LD}</head><body><div class="fixed inset-0 overflow-auto"><main>
      <h1>Wool Runner</h1>${para("wool", 4)}${para("sole", 4)}</main></div></body></html>`;
    expect(text(shell)).toContain("how the sole works");
    const page = `<html><head>${PRODUCT_LD}</head><body><main><div class="product"><h1>Wool Runner</h1>${para("wool", 3)}
      <div class="fixed top-0"><p>Care: machine wash cold on a gentle cycle, then let the shoes dry in the air.</p></div>
      <div class="absolute inset-0"><p>Fit: the runner fits true to size for most feet and most socks.</p></div></div></main></body></html>`;
    const t = text(page);
    for (const want of ["machine wash cold", "true to size"]) expect(t).toContain(want);
  });
});

describe("dialogs named by their class", () => {
  const dialog = `<div class="merge_cart_dialog__wrapper"><div class="dialog"><div class="dialog_container">
    <div class="dialog_title"><span class="title">Add items to your cart?</span></div>
    <p>We have noticed that you entered a different store. Do you want to add these items to your cart in this store?</p>
    </div></div></div>`;

  it("drops a dialog the page opens on demand ('merge_cart_dialog', 'dialog_container'), keeps the product", () => {
    const t = text(`<html><head>${PRODUCT_LD}</head><body><main><div class="product">
      <h1>Wool Runner</h1><div class="price">$98.00</div>${para("wool", 3)}</div>${dialog}</main></body></html>`);
    for (const want of ["Wool Runner", "$98.00", "how the wool works"]) expect(t).toContain(want);
    for (const gone of ["Add items to your cart?", "different store"]) expect(t).not.toContain(gone);
  });

  it("keeps a block whose class only contains the word (a script's 'dialogue')", () => {
    const script = `<div class="dialogue"><p>Sam: The wool keeps my feet warm on the long walk home through the rain.</p></div>`;
    const t = text(`<html><head>${PRODUCT_LD}</head><body><main><div class="product">
      <h1>Wool Runner</h1>${para("wool", 3)}${script}</div></main></body></html>`);
    expect(t).toContain("keeps my feet warm");
  });
});

describe("modals that spell out terms in prose", () => {
  const terms = `<div class="region region-modals"><div id="block-offer-terms" class="block block-modal">
    <div class="modal-body"><p><strong>*Offer details</strong></p>${para("offer term", 5)}
    <p><strong>Financing options</strong></p>${para("financing term", 5)}</div></div></div>`;

  it("drops a modal of fine print that holds paragraphs of prose ('region-modals', 'block-modal'), keeps the product", () => {
    const t = text(`<html><head>${PRODUCT_LD}</head><body><main><div class="product">
      <h1>Wool Runner</h1><div class="price">$98.00</div>${para("wool", 3)}</div></main>${terms}</body></html>`);
    for (const want of ["Wool Runner", "$98.00", "how the wool works"]) expect(t).toContain(want);
    for (const gone of ["Offer details", "how the offer term works", "how the financing term works"])
      expect(t).not.toContain(gone);
  });

  it("keeps a wrapper named for a modal that holds the page's h1, and prose under a class that only contains the word", () => {
    const shell = `<html><head>${PRODUCT_LD}</head><body><div class="page has-modal"><div class="product">
      <h1>Wool Runner</h1>${para("wool", 5)}${para("sole", 5)}</div></div>
      <div class="notes"><p>Every pair ships in a recycled box with a printed care card and a spare set of laces.</p>
      <p>Exchanges are free within thirty days for unworn pairs in their original box.</p></div></body></html>`;
    expect(text(shell)).toContain("how the sole works");
    const care = `<div class="care-modalities">${para("washing", 5)}${para("drying", 5)}</div>`;
    const t = text(`<html><head>${PRODUCT_LD}</head><body><main><div class="product">
      <h1>Wool Runner</h1>${para("wool", 3)}</div>${care}</main></body></html>`);
    expect(t).toContain("how the drying works");
  });
});
