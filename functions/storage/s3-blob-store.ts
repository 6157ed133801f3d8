import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { type BlobStore, checkKey } from "./blob-store.ts";

/** Long enough for a recording of several MiB over a slow link, short enough that a wedged call frees its caller. */
export const S3_CALL_TIMEOUT_MS = 60_000;

export interface S3BlobStoreOptions {
  client: S3Client;
  bucket: string;
  /** Joined to every key with "/", so several deployments can share a bucket ("" for none). */
  prefix?: string;
  /** Bound of each call, retries included (the SDK retries throttling and network errors). */
  timeoutMs?: number;
  /** Shown in errors and the start-up banner, e.g. the endpoint of an emulator. */
  where?: string;
}

/**
 * Blobs as objects in one bucket (ARCHITECTURE.md: artifacts live in S3 in the cloud). Keys follow
 * the file store's rule and are checked before any request, so a bad key never reaches the bucket;
 * a missing object reads as null like a missing file; every other failure is thrown with the
 * operation, key and bucket named, so a worker's log says what broke, not just "socket hang up".
 */
export function s3BlobStore(opts: S3BlobStoreOptions): BlobStore {
  const { client, bucket, timeoutMs = S3_CALL_TIMEOUT_MS } = opts;
  const prefix = opts.prefix ? `${opts.prefix.replace(/\/+$/, "")}/` : "";
  const where = `s3://${bucket}/${prefix}${opts.where ? ` at ${opts.where}` : ""}`;
  const objectKey = (key: string) => `${prefix}${checkKey(key)}`;

  async function call<T>(op: string, key: string, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      return await fn(signal);
    } catch (err) {
      if (signal.aborted) throw new Error(`S3 ${op} of blob ${key} (${where}) timed out after ${timeoutMs} ms`, { cause: err });
      const reason = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      throw new Error(`S3 ${op} of blob ${key} (${where}) failed: ${reason}`, { cause: err });
    }
  }

  return {
    description: `s3 (${where})`,
    async put(key, data) {
      const Key = objectKey(key);
      await call("put", key, (abortSignal) =>
        client.send(new PutObjectCommand({ Bucket: bucket, Key, Body: data, ContentType: "application/octet-stream" }), {
          abortSignal,
        }),
      );
    },
    async get(key) {
      const Key = objectKey(key);
      return call("get", key, async (abortSignal) => {
        try {
          const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key }), { abortSignal });
          if (!out.Body) return Buffer.alloc(0);
          // The body streams after the response headers; reading it is inside the same deadline.
          const bytes = await out.Body.transformToByteArray();
          return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        } catch (err) {
          // Only a missing object is "no blob"; AccessDenied, a missing bucket or a network error is a failure.
          if (err instanceof Error && err.name === "NoSuchKey") return null;
          throw err;
        }
      });
    },
    async delete(key) {
      const Key = objectKey(key);
      // S3 answers 204 for a key that does not exist, so deleting twice is fine, as with files.
      await call("delete", key, (abortSignal) => client.send(new DeleteObjectCommand({ Bucket: bucket, Key }), { abortSignal }));
    },
  };
}
