import { S3Client } from "@aws-sdk/client-s3";
import type { BlobStoreConfig } from "../config/config-storage.ts";
import { type BlobStore, fileBlobStore } from "./blob-store.ts";
import { s3BlobStore } from "./s3-blob-store.ts";

/**
 * The configured artifact store, built once by an entry point (server, worker, CLI) and passed to
 * what needs it. Credentials come from the SDK's default chain (environment, ECS task role).
 */
export function openBlobStore(config: BlobStoreConfig): BlobStore {
  if (config.kind === "files") return fileBlobStore(config.dir);
  const client = new S3Client({
    region: config.region,
    // Emulators and MinIO answer on one host name; virtual-hosted URLs (bucket.host) would need
    // wildcard DNS for them, so a custom endpoint gets path-style URLs (host/bucket/key).
    ...(config.endpoint ? { endpoint: config.endpoint, forcePathStyle: true } : {}),
  });
  return s3BlobStore({ client, bucket: config.bucket, prefix: config.prefix, where: config.endpoint ?? undefined });
}
