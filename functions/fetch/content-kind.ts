/** What a response body is, for content-type dispatch (spec 4.6 "Supported content"). */
export type ContentKind = "html" | "pdf" | "json" | "text" | "csv" | "binary";

export function contentKind(contentType: string | undefined, body: Buffer, url: string): ContentKind {
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  const head = body.subarray(0, 1024).toString("latin1");
  if (head.startsWith("%PDF-")) return "pdf";
  if (type === "application/pdf") return "pdf";
  if (type === "text/csv" || type === "application/csv") return "csv";
  if (type === "application/json" || type.endsWith("+json")) return "json";
  if (type === "text/html" || type === "application/xhtml+xml") return "html";
  if (type === "text/plain" || type === "text/markdown") {
    return /\.csv(\?|$)/i.test(new URL(url).pathname) ? "csv" : "text";
  }
  if (
    type.startsWith("image/") ||
    type.startsWith("audio/") ||
    type.startsWith("video/") ||
    type === "application/octet-stream" ||
    type === "application/zip"
  ) {
    return "binary";
  }
  // Unknown or missing type: sniff.
  if (/^\s*(<!doctype html|<html|<head|<body)/i.test(head)) return "html";
  if (/^\s*[[{]/.test(head)) return "json";
  if (type.startsWith("text/") || type === "application/xml" || type.endsWith("+xml")) return "text";
  // Binary if it has NUL bytes early on.
  return head.includes("\u0000") ? "binary" : "text";
}
