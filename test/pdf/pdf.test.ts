import { describe, expect, it } from "vitest";
import { extractPdf } from "../../functions/extract/pdf.ts";
import { writePdf } from "./pdf-writer.ts";

const ok = async (bytes: Uint8Array, opts = {}) => {
  const r = await extractPdf(bytes, opts);
  if (!r.ok) throw new Error(`expected ok, got ${r.error}: ${r.detail}`);
  return r;
};

describe("extractPdf", () => {
  it("reads the text of one page and the Info dictionary", async () => {
    const pdf = writePdf({
      pages: [["Osprey field notes", "The osprey is a fish-eating bird of prey (Pandion haliaetus)."]],
      info: { title: "Field Notes", author: "Ada Lovelace", creationDate: "D:20240315103000+02'00'" },
    });
    const r = await ok(pdf);
    expect(r.title).toBe("Field Notes");
    expect(r.author).toBe("Ada Lovelace");
    expect(r.publishedDate).toBe("2024-03-15T08:30:00.000Z");
    expect(r.pages).toBe(1);
    expect(r.truncated).toBe(false);
    expect(r.text).toBe("Osprey field notes\nThe osprey is a fish-eating bird of prey (Pandion haliaetus).");
  });

  it("joins pages with a blank line and skips pages without text", async () => {
    const r = await ok(writePdf({ pages: [["Page one"], [], ["Page three", "second line"]] }));
    expect(r.text).toBe("Page one\n\nPage three\nsecond line");
    expect(r.pages).toBe(3);
  });

  it("gives null metadata when there is no Info dictionary, and decodes UTF-16 and Latin-1 text", async () => {
    const bare = await ok(writePdf({ pages: [["Caf\u00e9 cr\u00e8me"]] }));
    expect(bare).toMatchObject({ title: null, author: null, publishedDate: null, text: "Caf\u00e9 cr\u00e8me" });
    const unicode = await ok(writePdf({ pages: [["x"]], info: { title: "\u00dcber \u6771\u4eac", author: "  " } }));
    expect(unicode.title).toBe("\u00dcber \u6771\u4eac");
    expect(unicode.author).toBeNull();
  });

  it("reads dates without a time zone as UTC and ignores unparsable ones", async () => {
    const utc = await ok(writePdf({ pages: [["x"]], info: { creationDate: "D:19991231" } }));
    expect(utc.publishedDate).toBe("1999-12-31T00:00:00.000Z");
    const junk = await ok(writePdf({ pages: [["x"]], info: { creationDate: "yesterday-ish" } }));
    expect(junk.publishedDate).toBeNull();
  });

  it("caps pages and says the text is truncated", async () => {
    const pages = Array.from({ length: 5 }, (_, i) => [`Page ${i + 1}`]);
    const r = await ok(writePdf({ pages }), { maxPages: 2 });
    expect(r).toMatchObject({ pages: 5, truncated: true, text: "Page 1\n\nPage 2" });
  });

  it("does not detach or change the caller's bytes", async () => {
    const bytes = writePdf({ pages: [["keep me"]] });
    const copy = bytes.slice();
    await ok(bytes);
    expect(bytes.byteLength).toBe(copy.byteLength);
    expect(Buffer.from(bytes).equals(Buffer.from(copy))).toBe(true);
  });

  it.each([
    ["empty input", new Uint8Array(0), /empty/],
    ["not a PDF", new TextEncoder().encode("<html><body>nope</body></html>"), /./],
    ["a truncated PDF", writePdf({ pages: [["cut short"]] }).slice(0, 60), /./],
    ["a PDF without text (a drawing only)", writePdf({ pages: [[], []], drawing: true }), /no text layer/],
    ["a PDF that needs a password", writePdf({ pages: [["secret"]], encrypted: true }), /encrypted/],
  ])("%s → empty_content", async (_name, bytes, detail) => {
    const r = await extractPdf(bytes, {});
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toBe("empty_content");
      expect(r.detail).toMatch(detail);
    }
  });

  it("refuses a PDF over the size cap before parsing it", async () => {
    const bytes = writePdf({ pages: [["big"]] });
    const r = await extractPdf(bytes, { maxBytes: bytes.byteLength - 1 });
    expect(r).toEqual({ ok: false, error: "empty_content", detail: `the PDF is larger than ${bytes.byteLength - 1} bytes` });
    expect((await extractPdf(bytes, { maxBytes: bytes.byteLength })).ok).toBe(true);
  });
});
