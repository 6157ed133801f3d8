import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { charsetFromContentType, charsetFromMeta, decodeHtml, detectEncoding } from "../../functions/net/charset.ts";
import { type SafeResponse, safeFetch } from "../../functions/net/safe-http.ts";
import { type Origin, startOrigin } from "./helpers.ts";

/** Text and its bytes in a legacy encoding (bytes written out, since Node cannot encode these). */
const SAMPLES: { encoding: string; label: string; text: string; hex: string }[] = [
  { encoding: "windows-1252", label: "windows-1252", text: "café €", hex: "636166e92080" },
  { encoding: "windows-1252", label: "ISO-8859-1", text: "café", hex: "636166e9" },
  { encoding: "windows-1252", label: "latin1", text: "café", hex: "636166e9" },
  { encoding: "shift_jis", label: "Shift_JIS", text: "日本語", hex: "93fa967b8cea" },
  { encoding: "shift_jis", label: "x-sjis", text: "日本語", hex: "93fa967b8cea" },
  { encoding: "euc-jp", label: "EUC-JP", text: "日本語", hex: "c6fccbdcb8ec" },
  { encoding: "gbk", label: "GBK", text: "中文", hex: "d6d0cec4" },
  { encoding: "gbk", label: "gb2312", text: "中文", hex: "d6d0cec4" },
  { encoding: "gb18030", label: "GB18030", text: "中文", hex: "d6d0cec4" },
  { encoding: "big5", label: "Big5", text: "中文", hex: "a4a4a4e5" },
  { encoding: "euc-kr", label: "EUC-KR", text: "한국어", hex: "c7d1b1b9beee" },
  { encoding: "koi8-r", label: "KOI8-R", text: "Привет", hex: "f0d2c9d7c5d4" },
  { encoding: "windows-1251", label: "windows-1251", text: "Привет", hex: "cff0e8e2e5f2" },
  { encoding: "iso-8859-2", label: "iso-8859-2", text: "ąć", hex: "b1e6" },
];

const html = (head: string, hex: string) =>
  Buffer.concat([
    Buffer.from(`<!doctype html><html><head>${head}</head><body><p>`),
    Buffer.from(hex, "hex"),
    Buffer.from("</p>"),
  ]);
const bodyText = (decoded: string) => /<p>(.*)<\/p>/.exec(decoded)?.[1];

describe("decodeHtml", () => {
  it.each(SAMPLES)("$label declared by the Content-Type header", ({ label, text, hex }) => {
    expect(bodyText(decodeHtml(html("", hex), `text/html; charset=${label}`))).toBe(text);
  });

  it.each(SAMPLES)("$label declared by <meta charset>", ({ label, text, hex }) => {
    expect(bodyText(decodeHtml(html(`<meta charset="${label}">`, hex), "text/html"))).toBe(text);
  });

  it.each(SAMPLES)("$label declared by <meta http-equiv>", ({ label, text, hex }) => {
    const meta = `<META HTTP-EQUIV='Content-Type' CONTENT='text/html; charset=${label}'>`;
    expect(bodyText(decodeHtml(html(meta, hex), undefined))).toBe(text);
  });

  it("prefers the header to the meta tag", () => {
    const body = html('<meta charset="windows-1252">', "93fa967b8cea");
    expect(bodyText(decodeHtml(body, "text/html; charset=shift_jis"))).toBe("日本語");
  });

  it.each([
    ["UTF-8", "efbbbf", Buffer.from("<p>héllo ✓</p>")],
    ["UTF-16LE", "fffe", Buffer.from("<p>héllo ✓</p>", "utf16le")],
    ["UTF-16BE", "feff", Buffer.from("<p>héllo ✓</p>", "utf16le").swap16()],
  ])("a %s byte-order mark beats the header and the meta tag", (_name, bom, payload) => {
    const body = Buffer.concat([Buffer.from(bom, "hex"), payload]);
    expect(decodeHtml(body, "text/html; charset=windows-1252")).toBe("<p>héllo ✓</p>");
  });

  it.each([
    ["no declaration", undefined, ""],
    ["an unknown header label", "text/html; charset=klingon", ""],
    ["an unknown meta label", undefined, '<meta charset="x-made-up">'],
    ["a meta tag past the first 4 KiB", undefined, `<!-- ${"x".repeat(5000)} --><meta charset="windows-1252">`],
    ["a meta tag claiming UTF-16", undefined, '<meta charset="utf-16">'],
  ])("falls back to UTF-8 with %s", (_label, contentType, head) => {
    const body = Buffer.concat([Buffer.from(`<html><head>${head}</head><p>`), Buffer.from("naïve ✓"), Buffer.from("</p>")]);
    expect(bodyText(decodeHtml(body, contentType))).toBe("naïve ✓");
  });

  it("replaces invalid bytes rather than failing", () => {
    expect(decodeHtml(Buffer.from([0x61, 0xff, 0x62]), "text/plain; charset=utf-8")).toBe("a\ufffdb");
  });

  it.each([
    ['text/html; charset="Shift_JIS"', "Shift_JIS"],
    ["text/html;charset=gbk;q=1", "gbk"],
    ["text/html; CHARSET = koi8-r", "koi8-r"],
    ["text/html", null],
    [undefined, null],
  ])("reads the charset parameter of %j", (contentType, charset) => {
    expect(charsetFromContentType(contentType)).toBe(charset);
  });

  it("finds the first meta declaration only", () => {
    expect(charsetFromMeta(Buffer.from('<meta name="x"><meta charset=big5><meta charset="gbk">'))).toBe("big5");
    expect(detectEncoding(Buffer.from("<p>x</p>"), undefined)).toEqual({ encoding: "utf-8", bomLength: 0 });
  });
});

describe("decodeHtml on bodies fetched from an origin", () => {
  let origin: Origin;
  const pages: Record<string, { type: string; body: Buffer }> = {
    "/1252-header": { type: "text/html; charset=windows-1252", body: html("", "636166e92080") },
    "/sjis-meta": { type: "text/html", body: html('<meta charset="Shift_JIS">', "93fa967b8cea") },
    "/gbk-meta": {
      type: "text/html",
      body: html('<meta http-equiv="content-type" content="text/html; charset=GBK">', "d6d0cec4"),
    },
    "/gbk-header": { type: "text/html;charset=gbk", body: html("", "d6d0cec4") },
    "/bom": {
      type: "text/html; charset=shift_jis",
      body: Buffer.concat([Buffer.from("efbbbf", "hex"), html("", "e4b8ade69687")]),
    },
  };
  beforeAll(async () => {
    origin = await startOrigin((req, res) => {
      const page = pages[req.url ?? ""];
      if (!page) return res.writeHead(404).end();
      res.writeHead(200, { "content-type": page.type }).end(page.body);
    });
  });
  afterAll(() => origin.close());

  it.each([
    ["/1252-header", "café €"],
    ["/sjis-meta", "日本語"],
    ["/gbk-meta", "中文"],
    ["/gbk-header", "中文"],
    ["/bom", "中文"],
  ])("%s decodes to %s", async (path, text) => {
    const result = (await safeFetch(origin.url(path), { allow: [{ host: "127.0.0.1", port: origin.port }] })) as SafeResponse;
    expect(result.ok).toBe(true);
    expect(bodyText(decodeHtml(result.body, result.headers["content-type"]))).toBe(text);
  });
});
