import type { IncomingMessage } from "node:http";
import { Transform, type TransformCallback } from "node:stream";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";

/**
 * Reads a response body under a byte cap that applies to the bytes on the wire AND to the decoded
 * bytes: a 1 GiB body of zeros compresses to ~1 MiB, so capping only the wire would let a small
 * response allocate gigabytes. Decoding is streamed and the stream is torn down the moment either
 * count crosses the cap, so at most one decoder chunk past the cap is ever produced.
 */

export interface BodyResult {
  body: Buffer;
  /** The cap was reached: `body` holds the first `maxBytes` decoded bytes only. */
  truncated: boolean;
  /** The Content-Encoding was undone (false when there was none or it was not recognised). */
  decoded: boolean;
}

export class BodyDecodeError extends Error {
  override name = "BodyDecodeError";
}

const zstdAvailable = typeof (zlib as { createZstdDecompress?: unknown }).createZstdDecompress === "function";

/** The Accept-Encoding this runtime can undo. */
export const ACCEPT_ENCODING = zstdAvailable ? "gzip, deflate, br, zstd" : "gzip, deflate, br";

/** Thrown through the pipeline to stop reading; never escapes `readBody`. */
class LimitReached extends Error {
  override name = "LimitReached";
}

/**
 * `Content-Encoding: deflate` is meant to be zlib-wrapped, but some servers send raw deflate (as
 * browsers accept both); the first two bytes tell them apart.
 */
class InflateAuto extends Transform {
  #inner: zlib.Inflate | zlib.InflateRaw | null = null;

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    if (!this.#inner) {
      const zlibHeader =
        chunk.length >= 2 && ((chunk[0] ?? 0) & 0x0f) === 8 && (((chunk[0] ?? 0) << 8) | (chunk[1] ?? 0)) % 31 === 0;
      const opts = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
      this.#inner = zlibHeader ? zlib.createInflate(opts) : zlib.createInflateRaw(opts);
      this.#inner.on("data", (d: Buffer) => this.push(d));
      this.#inner.on("error", (e) => this.destroy(e));
    }
    this.#inner.write(chunk, () => done());
  }

  override _flush(done: TransformCallback): void {
    if (!this.#inner) {
      done();
      return;
    }
    this.#inner.once("end", () => done());
    this.#inner.end();
  }

  override _destroy(err: Error | null, done: (error?: Error | null) => void): void {
    this.#inner?.destroy();
    done(err);
  }
}

function decoderFor(coding: string): Transform | null {
  const sync = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
  switch (coding) {
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip(sync);
    case "deflate":
      return new InflateAuto();
    case "br":
      return zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
    case "zstd":
      return zstdAvailable ? zlib.createZstdDecompress() : null;
    default:
      return null;
  }
}

/** Decoders for a Content-Encoding list, in the order to apply them; null if one is unknown. */
function decodersFor(contentEncoding: string | undefined): Transform[] | null {
  const codings = (contentEncoding ?? "")
    .split(",")
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== "" && c !== "identity")
    .reverse();
  const decoders: Transform[] = [];
  for (const coding of codings) {
    const d = decoderFor(coding);
    if (!d) return null;
    decoders.push(d);
  }
  return decoders;
}

function wireCounter(maxBytes: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      // Past the cap on the wire: stop, even if the decoded output is still small.
      if (seen > maxBytes) return done(new LimitReached("body over the cap on the wire"));
      done(null, chunk);
    },
  });
}

/** stream.pipeline over a list whose length is known only at run time (its typings want a tuple). */
const pipelineOf = pipeline as unknown as (streams: unknown[], options: { signal: AbortSignal }) => Promise<void>;

export async function readBody(res: IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<BodyResult> {
  const noBody = res.statusCode === 204 || res.statusCode === 304;
  const decoders = noBody ? [] : decodersFor(res.headers["content-encoding"]);
  const chunks: Buffer[] = [];
  let total = 0;
  let truncated = false;
  const sink = async (source: AsyncIterable<Buffer>): Promise<void> => {
    for await (const chunk of source) {
      const room = maxBytes - total;
      if (chunk.length > room) {
        if (room > 0) chunks.push(chunk.subarray(0, room));
        total = maxBytes;
        truncated = true;
        throw new LimitReached("decoded body over the cap");
      }
      chunks.push(chunk);
      total += chunk.length;
    }
  };
  const stages: Transform[] = decoders && decoders.length > 0 ? [wireCounter(maxBytes), ...decoders] : [];
  // Which stream failed first tells a corrupt encoding from a dropped connection.
  let decodeFailure: Error | null = null;
  let wireFailure: Error | null = null;
  res.once("error", (e) => (wireFailure ??= e));
  for (const decoder of decoders ?? []) decoder.once("error", (e) => (decodeFailure ??= e));
  try {
    await pipelineOf([res, ...stages, sink], { signal });
  } catch (err) {
    if (err instanceof LimitReached) truncated = true;
    else if (signal.aborted) throw err;
    else if (decodeFailure && decodeFailure !== wireFailure)
      throw new BodyDecodeError(`content decoding failed: ${String(decodeFailure)}`);
    else throw err;
  }
  return { body: Buffer.concat(chunks, total), truncated, decoded: stages.length > 0 };
}
