import type { DocTree } from "./ports.ts";

/** Non-HTML text (plain text, CSV, JSON, PDF) in the requested format (spec 2.5 `text`). */

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

export function textAsFormat(
  text: string,
  format: "markdown" | "html" | "json",
  kind: "text" | "json" | "csv" | "pdf",
): string | DocTree {
  if (format === "markdown") return text;
  if (kind === "json" || kind === "csv") {
    if (format === "html") return `<pre>${escapeHtml(text)}</pre>`;
    return { type: "document", children: [{ type: "code", language: kind, text }] } as DocTree;
  }
  const paragraphs = text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean);
  if (format === "html") return paragraphs.map((p) => `<p>${escapeHtml(p).replace(/\n/g, "<br>")}</p>`).join("\n");
  return {
    type: "document",
    children: paragraphs.map((p) => ({ type: "paragraph", children: [{ type: "text", text: p }] })),
  } as DocTree;
}
