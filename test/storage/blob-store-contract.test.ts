import { randomBytes } from "node:crypto";
import { createServer, type Server, type Socket } from "node:net";
import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { type FauxqsServer, startFauxqs } from "fauxqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BlobStore, fileBlobStore, memoryBlobStore } from "../../functions/storage/blob-store.ts";
import { openBlobStore } from "../../functions/storage/open-blob-store.ts";
import { s3BlobStore } from "../../functions/storage/s3-blob-store.ts";
import { setEnv } from "../helpers/env.ts";
import { tempDir } from "../helpers/process.ts";

/**
 * One contract for every BlobStore adapter: the file store (`npm start`), the S3 store (the cloud,
 * here against the fauxqs emulator, which speaks S3 as well as SQS) and the in-memory one the
 * tests use. Whatever a feature relies on (null for a missing blob, idempotent delete, overwrite,
 * bytes back exactly as written, the key rule) is checked here once for all of them.
 */

const INVALID_KEYS = ["", "A1", "../etc", "a/b", "a b", "-lead", `a${"b".repeat(128)}`, "key.tmp"];

let fauxqs: FauxqsServer;
let bucketN = 0;
const testCredentials = { accessKeyId: "test", secretAccessKey: "test" };

function s3Client(endpoint: string): S3Client {
  return new S3Client({ endpoint, region: "us-east-1", forcePathStyle: true, credentials: testCredentials });
}

/** A fresh bucket per adapter case, so no case sees another's objects. */
function newBucket(): string {
  const name = `osprey-blobs-${process.pid}-${++bucketN}`;
  fauxqs.createBucket(name);
  return name;
}

beforeAll(async () => {
  fauxqs = await startFauxqs({ port: 0, logger: false });
});
afterAll(async () => {
  await fauxqs?.stop();
});

type Adapter = { name: string; open(): BlobStore; cleanup?(): void };

const files = (() => {
  let dir: ReturnType<typeof tempDir> | null = null;
  return {
    name: "files",
    open() {
      dir = tempDir("osprey-blobs-");
      return fileBlobStore(dir.dir);
    },
    cleanup: () => dir?.cleanup(),
  };
})();

const adapters: Adapter[] = [
  files,
  { name: "memory", open: () => memoryBlobStore() },
  // Built the way the entry points build it: from the parsed configuration's shape.
  {
    name: "s3 (fauxqs, through openBlobStore)",
    open: () =>
      withTestCredentials(() =>
        openBlobStore({ kind: "s3", bucket: newBucket(), prefix: "", endpoint: fauxqs.address, region: "us-east-1" }),
      ),
  },
  {
    name: "s3 (fauxqs, with a key prefix)",
    open: () => s3BlobStore({ client: s3Client(fauxqs.address), bucket: newBucket(), prefix: "deploy-a/blobs" }),
  },
];

/**
 * openBlobStore takes credentials from the SDK's default chain: the environment, for this file
 * (the SDK reads it at the first request, so it is put back only when the file ends).
 */
let restoreEnv: (() => void) | undefined;
function withTestCredentials<T>(fn: () => T): T {
  restoreEnv ??= setEnv({
    AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID ?? testCredentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY ?? testCredentials.secretAccessKey,
  });
  return fn();
}
afterAll(() => restoreEnv?.());

describe.each(adapters)("BlobStore contract: $name", (adapter) => {
  let store: BlobStore;
  beforeAll(() => {
    store = adapter.open();
  });
  afterAll(() => adapter.cleanup?.());

  it("gives back exactly the bytes it was given (every byte value)", async () => {
    const data = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), randomBytes(4096)]);
    await store.put("roundtrip", data);
    const got = await store.get("roundtrip");
    expect(got).toBeInstanceOf(Buffer);
    expect(got?.equals(data)).toBe(true);
  });

  it("keeps an empty body as an empty blob, not a missing one", async () => {
    await store.put("empty", Buffer.alloc(0));
    expect((await store.get("empty"))?.length).toBe(0);
  });

  it("answers null for a key never written", async () => {
    expect(await store.get("never-written")).toBeNull();
  });

  it("deletes, and deleting a missing or deleted key is fine", async () => {
    await store.put("doomed", Buffer.from("x"));
    await store.delete("doomed");
    expect(await store.get("doomed")).toBeNull();
    await store.delete("doomed");
    await store.delete("never-there");
  });

  it("overwrites a key with the newer body", async () => {
    await store.put("overwritten", Buffer.from("first, and longer than the second"));
    await store.put("overwritten", Buffer.from("second"));
    expect((await store.get("overwritten"))?.toString()).toBe("second");
  });

  it("stores a body of several MiB", async () => {
    const big = randomBytes(8 * 1024 * 1024 + 17);
    await store.put("big", big);
    expect((await store.get("big"))?.equals(big)).toBe(true);
  });

  it("refuses keys outside the rule on every operation", async () => {
    for (const key of INVALID_KEYS) {
      await expect(store.put(key, Buffer.from("x")), key).rejects.toThrow(/invalid blob key/);
      await expect(store.get(key), key).rejects.toThrow(/invalid blob key/);
      await expect(store.delete(key), key).rejects.toThrow(/invalid blob key/);
    }
  });
});

describe("S3 blob store", () => {
  it("checks keys before sending anything to S3", async () => {
    const real = s3Client(fauxqs.address);
    let sent = 0;
    const send = (...args: Parameters<S3Client["send"]>) => {
      sent++;
      return real.send(...args);
    };
    const counting = { send } as unknown as S3Client;
    const store = s3BlobStore({ client: counting, bucket: newBucket() });
    for (const key of INVALID_KEYS) {
      await expect(store.put(key, Buffer.from("x"))).rejects.toThrow(/invalid blob key/);
      await expect(store.get(key)).rejects.toThrow(/invalid blob key/);
      await expect(store.delete(key)).rejects.toThrow(/invalid blob key/);
    }
    expect(sent).toBe(0);
    await store.put("valid", Buffer.from("x"));
    expect(sent).toBe(1);
  });

  it("writes under the prefix, and stores with different prefixes do not see each other", async () => {
    const client = s3Client(fauxqs.address);
    const bucket = newBucket();
    const a = s3BlobStore({ client, bucket, prefix: "tenant-a/" });
    const b = s3BlobStore({ client, bucket, prefix: "tenant-b" });
    await a.put("shared-name", Buffer.from("from a"));
    expect(await b.get("shared-name")).toBeNull();
    const raw = await client.send(new GetObjectCommand({ Bucket: bucket, Key: "tenant-a/shared-name" }));
    expect(await raw.Body?.transformToString()).toBe("from a");
  });

  it("a missing bucket is an error naming the operation, key and bucket, not a missing blob", async () => {
    const store = s3BlobStore({ client: s3Client(fauxqs.address), bucket: "no-such-bucket-here" });
    await expect(store.get("somekey")).rejects.toThrow(
      /S3 get of blob somekey \(s3:\/\/no-such-bucket-here\/\) failed: NoSuchBucket/,
    );
  });

  it("a stopped emulator gives a clear error at once, not a hang", async () => {
    const stopped = await startFauxqs({ port: 0, logger: false });
    const endpoint = stopped.address;
    stopped.createBucket("gone");
    await stopped.stop();
    const store = s3BlobStore({ client: s3Client(endpoint), bucket: "gone", where: endpoint });
    const started = Date.now();
    const err = await store.put("orphan", Buffer.from("x")).catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect(err?.message).toMatch(/^S3 put of blob orphan \(s3:\/\/gone\/ at http:\/\/127\.0\.0\.1:\d+\) failed: .*ECONNREFUSED/);
    // The SDK retries a refused connection a few times with a short backoff; it still ends quickly.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("a server that accepts and never answers is cut off by the per-call timeout", async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((s) => sockets.add(s));
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const { port } = silent.address() as { port: number };
    try {
      const store = s3BlobStore({ client: s3Client(`http://127.0.0.1:${port}`), bucket: "silent", timeoutMs: 500 });
      const started = Date.now();
      await expect(store.get("waits")).rejects.toThrow(/S3 get of blob waits \(s3:\/\/silent\/\) timed out after 500 ms/);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });
});
