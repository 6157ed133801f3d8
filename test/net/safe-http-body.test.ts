import type http from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { AllowedHost } from "../../functions/config/config.ts";
import { DEFAULT_MAX_BODY_BYTES, type SafeResponse, safeFetch } from "../../functions/net/safe-http.ts";
import { type Origin, startOrigin } from "./helpers.ts";

const MiB = 1024 * 1024;
let origin: Origin;
let allow: AllowedHost[];
const routes = new Map<string, http.RequestListener>();

beforeAll(async () => {
  origin = await startOrigin((req, res) => {
    const route = routes.get(req.url ?? "/");
    if (route) route(req, res);
    else res.writeHead(404).end();
  });
  allow = [{ host: "127.0.0.1", port: origin.port }];
});
afterAll(() => origin.close());
afterEach(() => routes.clear());

const ok = (result: unknown): SafeResponse => {
  expect(result).toMatchObject({ ok: true });
  return result as SafeResponse;
};

/** An endless stream of `chunk`, stopping only when the client goes away. */
function endless(chunk: Buffer): Readable {
  return new Readable({
    read() {
      this.push(chunk);
    },
  });
}

/** Streams endless zeros through `encoder` (null: none) until the client disconnects. */
const endlessRoute =
  (encoding: string | null, encoder: () => NodeJS.ReadWriteStream | null): http.RequestListener =>
  (_req, res) => {
    res.writeHead(200, encoding ? { "content-encoding": encoding } : {});
    const codec = encoder();
    const streams = codec ? [endless(Buffer.alloc(64 * 1024)), codec, res] : [endless(Buffer.alloc(64 * 1024)), res];
    (pipeline as unknown as (s: unknown[]) => Promise<void>)(streams).catch(() => {});
  };

const ENCODERS: [string, () => NodeJS.ReadWriteStream][] = [
  ["gzip", () => zlib.createGzip({ level: 1 })],
  ["deflate", () => zlib.createDeflate({ level: 1 })],
  ["br", () => zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } })],
  ["zstd", () => zlib.createZstdCompress()],
];

describe("decompression bombs", () => {
  it.each(ENCODERS)("an endless %s stream of zeros stops at the cap", async (encoding, encoder) => {
    routes.set("/bomb", endlessRoute(encoding, encoder));
    const result = ok(await safeFetch(origin.url("/bomb"), { allow, maxBodyBytes: MiB }));
    expect(result).toMatchObject({ status: 200, truncated: true });
    expect(result.body.length).toBe(MiB);
    expect(result.body.every((b) => b === 0)).toBe(true);
    expect(result.headers["content-encoding"]).toBeUndefined();
  });

  it("1 GiB of zeros in ~1 MiB of gzip is cut at the default cap without being inflated", async () => {
    const member = zlib.gzipSync(Buffer.alloc(MiB), { level: 9 });
    const bomb = Buffer.concat(Array.from({ length: 1024 }, () => member));
    expect(bomb.length).toBeLessThan(2 * MiB);
    routes.set("/gib", (_req, res) =>
      res.writeHead(200, { "content-encoding": "gzip", "content-length": bomb.length }).end(bomb),
    );
    const before = process.memoryUsage().rss;
    const result = ok(await safeFetch(origin.url("/gib"), { allow }));
    expect(result).toMatchObject({ truncated: true });
    expect(result.body.length).toBe(DEFAULT_MAX_BODY_BYTES);
    expect(process.memoryUsage().rss - before).toBeLessThan(256 * MiB);
  });

  it("an endless stream of empty gzip members stops at the cap on the wire", async () => {
    const empty = zlib.gzipSync(Buffer.alloc(0));
    routes.set("/empty", (_req, res) => {
      res.writeHead(200, { "content-encoding": "gzip" });
      pipeline(endless(Buffer.concat(Array.from({ length: 512 }, () => empty))), res).catch(() => {});
    });
    const result = ok(await safeFetch(origin.url("/empty"), { allow, maxBodyBytes: 64 * 1024 }));
    expect(result).toMatchObject({ truncated: true });
    expect(result.body.length).toBe(0);
  });
});

describe("body size cap", () => {
  it.each([
    ["over the cap", 3 * MiB, MiB, true],
    ["exactly the cap", MiB, MiB, false],
    ["under the cap", 1000, MiB, false],
  ])("a plain body %s", async (_label, size, cap, truncated) => {
    routes.set("/plain", (_req, res) => res.writeHead(200, { "content-length": size }).end(Buffer.alloc(size, 97)));
    const result = ok(await safeFetch(origin.url("/plain"), { allow, maxBodyBytes: cap }));
    expect(result.truncated).toBe(truncated);
    expect(result.body.length).toBe(Math.min(size, cap));
  });

  it("an endless plain body stops at the cap", async () => {
    routes.set(
      "/endless",
      endlessRoute(null, () => null),
    );
    const result = ok(await safeFetch(origin.url("/endless"), { allow, maxBodyBytes: 256 * 1024 }));
    expect(result).toMatchObject({ truncated: true });
    expect(result.body.length).toBe(256 * 1024);
  });
});

describe("content encodings", () => {
  const text = Buffer.from(`${"<html><body>".padEnd(50_000, "Osprey fetches the page. ")}</body></html>`);
  const cases: [string, Buffer][] = [
    ["gzip", zlib.gzipSync(text)],
    ["x-gzip", zlib.gzipSync(text)],
    ["GZIP", zlib.gzipSync(text)],
    ["deflate", zlib.deflateSync(text)],
    ["deflate", zlib.deflateRawSync(text)],
    ["br", zlib.brotliCompressSync(text)],
    ["zstd", zlib.zstdCompressSync(text)],
    ["deflate, gzip", zlib.gzipSync(zlib.deflateSync(text))],
    ["gzip, br", zlib.brotliCompressSync(zlib.gzipSync(text))],
    ["identity", text],
    ["", text],
  ];

  it.each(cases)("decodes Content-Encoding %j", async (encoding, body) => {
    routes.set("/enc", (_req, res) =>
      res.writeHead(200, { "content-encoding": encoding, "content-length": body.length, etag: '"e"' }).end(body),
    );
    const result = ok(await safeFetch(origin.url("/enc"), { allow }));
    expect(result.body.equals(text)).toBe(true);
    expect(result.truncated).toBe(false);
    expect(result.headers.etag).toBe('"e"');
    if (encoding.trim() && encoding !== "identity") expect(result.headers["content-encoding"]).toBeUndefined();
  });

  it("returns a body in an unknown encoding as it came, header kept", async () => {
    routes.set("/unknown", (_req, res) =>
      res.writeHead(200, { "content-encoding": "compress" }).end(Buffer.from("\x1f\x9d raw", "latin1")),
    );
    const result = ok(await safeFetch(origin.url("/unknown"), { allow }));
    expect(result.body.toString("latin1")).toBe("\x1f\x9d raw");
    expect(result.headers["content-encoding"]).toBe("compress");
  });

  it("keeps what a cut-off gzip body decoded to", async () => {
    const gz = zlib.gzipSync(text);
    routes.set("/cut", (_req, res) => res.writeHead(200, { "content-encoding": "gzip" }).end(gz.subarray(0, gz.length - 12)));
    const result = ok(await safeFetch(origin.url("/cut"), { allow }));
    expect(text.subarray(0, result.body.length).equals(result.body)).toBe(true);
    expect(result.body.length).toBeGreaterThan(0);
  });

  it.each(["gzip", "br", "deflate", "zstd"])("reports a corrupt %s body as target_unreachable", async (encoding) => {
    routes.set("/corrupt", (_req, res) =>
      res.writeHead(200, { "content-encoding": encoding }).end(Buffer.from("this is not compressed at all, not even a little")),
    );
    const result = await safeFetch(origin.url("/corrupt"), { allow });
    expect(result).toMatchObject({ ok: false, error: "target_unreachable", detail: expect.stringContaining("decoding") });
  });
});
