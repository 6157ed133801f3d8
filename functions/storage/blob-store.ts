import { createHash } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";

/**
 * Bytes kept outside the database (ARCHITECTURE.md: artifacts are files under the data directory
 * in single-machine mode, S3 in the cloud). Large bodies stay out of the embedded database, whose
 * queries run on the server's own thread, and file I/O runs on libuv's pool, off the event loop.
 */
export interface BlobStore {
  readonly description: string;
  put(key: string, data: Buffer): Promise<void>;
  get(key: string): Promise<Buffer | null>;
  delete(key: string): Promise<void>;
}

/** Content addressing: equal bodies share one blob, and a key never names two contents. */
export const contentKey = (data: Buffer): string => createHash("sha256").update(data).digest("hex");

const KEY = /^[a-z0-9][a-z0-9_-]{0,127}$/;

/** Every adapter's key rule: lower-case names that are safe as a file name and as an S3 key. */
export function checkKey(key: string): string {
  if (!KEY.test(key)) throw new Error(`invalid blob key ${JSON.stringify(key)}`);
  return key;
}

/** Files under `dir`, two levels of fan-out; writes go to a temporary name and are renamed into place. */
export function fileBlobStore(dir: string): BlobStore {
  const fileOf = (key: string) => path.join(dir, key.slice(0, 2), checkKey(key));
  return {
    description: `files (${dir})`,
    async put(key, data) {
      const file = fileOf(key);
      await mkdir(path.dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      await writeFile(tmp, data);
      await rename(tmp, file);
    },
    async get(key) {
      try {
        return await readFile(fileOf(key));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw err;
      }
    },
    async delete(key) {
      await rm(fileOf(key), { force: true });
    },
  };
}

/** In memory: tests and tools. */
export function memoryBlobStore(): BlobStore {
  const blobs = new Map<string, Buffer>();
  return {
    description: "memory",
    async put(key, data) {
      blobs.set(checkKey(key), Buffer.from(data));
    },
    async get(key) {
      return blobs.get(checkKey(key)) ?? null;
    },
    async delete(key) {
      blobs.delete(checkKey(key));
    },
  };
}
