import { parseHTML } from "linkedom";

export const BASE = "https://example.com/blog/post.html";

/** A parsed document; `body` is placed in a full page (linkedom needs the <html> wrapper). */
export function page(body: string, head = ""): Document {
  return parseHTML(`<!doctype html><html><head>${head}</head><body>${body}</body></html>`).document as Document;
}

/** The <body> of a page made of `html`. */
export function body(html: string, head = ""): Element {
  return page(html, head).body;
}
