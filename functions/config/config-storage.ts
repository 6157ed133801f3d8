import path from "node:path";
import { z } from "zod";
import { emptyAsUndefined } from "./config-env.ts";

/**
 * Where artifacts (fetch cache bodies, step screenshots, recordings, live frames) are kept: files
 * under the data directory (single machine) or an S3 bucket (cloud; ARCHITECTURE.md). Its
 * environment fields are part of config.ts's schema; config.ts checks the combinations (it owns
 * ConfigError) and calls `storageConfig` with the validated variables.
 */

// S3's bucket naming rules (general-purpose buckets): 3 to 63 lower-case letters, digits, dots and
// hyphens, starting and ending with a letter or digit.
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
// Path segments of safe characters: the prefix is joined to blob keys with "/", so an empty
// segment or a leading slash would make keys no other tool lists the way the operator expects.
const PREFIX = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

export const StorageEnvFields = {
  OSPREY_BLOB_STORE: z.preprocess(emptyAsUndefined, z.enum(["files", "s3"], { error: "must be files or s3" }).default("files")),
  OSPREY_S3_BUCKET: z.preprocess(
    emptyAsUndefined,
    z.string().regex(BUCKET, "must be an S3 bucket name (3-63 lower-case letters, digits, dots, hyphens)").optional(),
  ),
  OSPREY_S3_PREFIX: z.preprocess(
    (v) => (typeof v === "string" ? emptyAsUndefined(v.replace(/^\/+|\/+$/g, "")) : v),
    z.string().regex(PREFIX, "must be path segments of letters, digits, '.', '_' and '-' separated by '/'").optional(),
  ),
  OSPREY_S3_ENDPOINT: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .refine((v) => /^https?:\/\//.test(v) && URL.canParse(v), "must be an http(s) URL")
      .optional(),
  ),
};

export type StorageEnv = z.output<z.ZodObject<typeof StorageEnvFields>>;

export type BlobStoreConfig =
  | { kind: "files"; dir: string }
  | {
      kind: "s3";
      bucket: string;
      /** Joined to every key with "/" ("" for none). */
      prefix: string;
      /** A custom endpoint (an emulator, MinIO); requests then use path-style URLs. */
      endpoint: string | null;
      region: string;
    };

/** The artifact store from validated variables; the caller has checked that s3 has a bucket. */
export function storageConfig(e: StorageEnv, dataDir: string, region: string): BlobStoreConfig {
  if (e.OSPREY_BLOB_STORE === "s3" && e.OSPREY_S3_BUCKET) {
    return {
      kind: "s3",
      bucket: e.OSPREY_S3_BUCKET,
      prefix: e.OSPREY_S3_PREFIX ?? "",
      endpoint: e.OSPREY_S3_ENDPOINT?.replace(/\/$/, "") ?? null,
      region,
    };
  }
  return { kind: "files", dir: path.join(dataDir, "blobs") };
}

/** A bad combination of the storage variables, as the one line start-up prints; null when fine. */
export function storageConfigProblem(e: StorageEnv): string | null {
  if (e.OSPREY_BLOB_STORE === "s3" && !e.OSPREY_S3_BUCKET) return "OSPREY_S3_BUCKET is required when OSPREY_BLOB_STORE is s3";
  if (e.OSPREY_BLOB_STORE === "files") {
    // An S3 setting with the default store is almost always a forgotten OSPREY_BLOB_STORE=s3:
    // artifacts would silently land on the container's disk and vanish with it.
    const set = (["OSPREY_S3_BUCKET", "OSPREY_S3_PREFIX", "OSPREY_S3_ENDPOINT"] as const).find((k) => e[k] !== undefined);
    if (set) return `${set} is set but OSPREY_BLOB_STORE is files (set OSPREY_BLOB_STORE=s3 to use S3)`;
  }
  return null;
}
