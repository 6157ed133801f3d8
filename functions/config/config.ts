import { isIPv6 } from "node:net";
import path from "node:path";
import { z } from "zod";
import { type BrowserConfig, BrowserEnvFields, browserConfig } from "./config-browser.ts";
import { emptyAsUndefined, optionalString } from "./config-env.ts";
import { renderEndpointSecret } from "./config-render.ts";
import { type ServicesConfig, ServicesEnvFields, servicesConfig } from "./config-services.ts";
import { type BlobStoreConfig, StorageEnvFields, storageConfig, storageConfigProblem } from "./config-storage.ts";
import { type VaultConfig, VaultEnvFields, vaultConfig } from "./config-vault.ts";
import { databaseUrlFromSecret, isJsonSecret } from "./secret-env.ts";

export type { BrowserConfig } from "./config-browser.ts";
export type { QueueConfig, SearchConfig, ServicesConfig } from "./config-services.ts";
export type { BlobStoreConfig } from "./config-storage.ts";
export type { VaultConfig } from "./config-vault.ts";

/**
 * The service's configuration, parsed once at start-up. This is the only module that reads the
 * process environment (the entry points pass `process.env` in); everything else receives the
 * parsed `Config`. An empty variable counts as unset, so `DATABASE_URL=` means "no database URL".
 */

const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface AllowedHost {
  /** Lower-case host name or IP literal (IPv6 without brackets). */
  host: string;
  /** When set, only this port of the host is exempt. */
  port: number | null;
}

const HOSTNAME = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/;

/** The canonical (compressed, lower-case) text of an IPv6 literal, as URL parsing writes it. */
const canonicalIPv6 = (v: string): string => new URL(`http://[${v}]/`).hostname.slice(1, -1);

/** Parses one `OSPREY_ALLOW_PRIVATE_HOSTS` entry: `host`, `host:port`, `[v6]`, `[v6]:port`. */
export function parseAllowedHost(entry: string): AllowedHost | null {
  const raw = entry.trim().toLowerCase();
  let host: string;
  let port: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(raw);
  if (bracketed) {
    host = bracketed[1] ?? "";
    port = bracketed[2];
    if (!isIPv6(host)) return null;
    host = canonicalIPv6(host);
  } else if ((raw.match(/:/g) ?? []).length > 1) {
    // A bare IPv6 literal cannot carry a port (the colon would be ambiguous).
    if (!isIPv6(raw)) return null;
    host = canonicalIPv6(raw);
  } else {
    const [h, p, ...rest] = raw.split(":");
    if (rest.length > 0 || !h || !HOSTNAME.test(h)) return null;
    host = h.replace(/\.$/, "");
    port = p;
  }
  if (port === undefined) return { host, port: null };
  const n = Number(port);
  if (!/^\d{1,5}$/.test(port) || n < 1 || n > 65535) return null;
  return { host, port: n };
}

const EnvSchema = z.object({
  PORT: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number({ error: "must be an integer between 0 and 65535" })
      .int("must be an integer between 0 and 65535")
      .min(0, "must be an integer between 0 and 65535")
      .max(65535, "must be an integer between 0 and 65535")
      .default(8787),
  ),
  HOST: z.preprocess(emptyAsUndefined, z.string().default("127.0.0.1")),
  OSPREY_DATA_DIR: z.preprocess(emptyAsUndefined, z.string().default("./.osprey")),
  DATABASE_URL: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .refine(
        (v) => /^postgres(ql)?:\/\/.+/.test(v) && URL.canParse(v),
        "must be a postgres:// or postgresql:// URL such as postgres://user:password@localhost:5432/osprey (a password with @, : or / percent-encoded); unset it to use the embedded database",
      )
      .optional(),
  ),
  OSPREY_DB_DRIVER: z.preprocess(
    emptyAsUndefined,
    z.enum(["pglite", "pg", "neon"], { error: "must be one of pglite, pg, neon" }).optional(),
  ),
  OSPREY_NEON_WS_PROXY: optionalString,
  OSPREY_ALLOW_PRIVATE_HOSTS: z.preprocess(emptyAsUndefined, z.string().default("")).transform((v, ctx) => {
    const entries: AllowedHost[] = [];
    for (const item of v.split(",")) {
      if (item.trim() === "") continue;
      const parsed = parseAllowedHost(item);
      if (!parsed) {
        ctx.addIssue({ code: "custom", message: `has an invalid entry "${item.trim()}" (expected host or host:port)` });
        return z.NEVER;
      }
      entries.push(parsed);
    }
    return entries;
  }),
  OSPREY_FETCH_NEVER_EXPIRE_HOSTS: z.preprocess(emptyAsUndefined, z.string().default("")).transform((v, ctx) => {
    const hosts = v
      .split(",")
      .map((h) => h.trim().toLowerCase().replace(/\.$/, ""))
      .filter(Boolean);
    const bad = hosts.find((h) => !HOSTNAME.test(h));
    if (bad !== undefined) {
      ctx.addIssue({ code: "custom", message: `has an invalid host "${bad}"` });
      return z.NEVER;
    }
    return hosts;
  }),
  OSPREY_LOG_LEVEL: z.preprocess(
    emptyAsUndefined,
    z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(", ")}` }).default("info"),
  ),
  OSPREY_SHUTDOWN_TIMEOUT_MS: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number({ error: "must be an integer number of milliseconds" })
      .int("must be an integer number of milliseconds")
      .min(0, "must not be negative")
      .max(600_000, "must be at most 600000")
      .default(10_000),
  ),
  CHROME_PATH: optionalString,
  OSPREY_LLM_PROVIDER: z.preprocess(
    emptyAsUndefined,
    z.enum(["openai", "anthropic"], { error: "must be openai or anthropic" }).optional(),
  ),
  OSPREY_LLM_BASE_URL: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .refine((v) => /^https?:\/\//.test(v) && URL.canParse(v), "must be an http(s) URL")
      .optional(),
  ),
  OSPREY_LLM_MODEL: optionalString,
  OSPREY_LLM_API_KEY: optionalString,
  OSPREY_LLM_VISION: z.preprocess(
    emptyAsUndefined,
    z.enum(["true", "false"], { error: "must be true or false" }).default("false"),
  ),
  OSPREY_PUBLIC_URL: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .refine((v) => /^https?:\/\//.test(v) && URL.canParse(v), "must be an http(s) URL")
      .optional(),
  ),
  ...ServicesEnvFields,
  ...StorageEnvFields,
  ...BrowserEnvFields,
  ...VaultEnvFields,
});

export type DatabaseConfig =
  | { driver: "pglite"; dataDir: string }
  | { driver: "pg"; url: string }
  | { driver: "neon"; url: string; wsProxy: string | null };

export interface Config extends ServicesConfig {
  port: number;
  host: string;
  dataDir: string;
  database: DatabaseConfig;
  allowPrivateHosts: AllowedHost[];
  /** Hosts whose cached fetch responses never expire (spec 4.6 ttl "operator-pinned never-expire list"). */
  fetchNeverExpireHosts: string[];
  logLevel: LogLevel;
  shutdownTimeoutMs: number;
  chromePath: string | null;
  model: { provider: "openai" | "anthropic"; baseUrl: string | null; model: string | null; apiKey: string | null } | null;
  /** Send a screenshot with each page state (for vision models). */
  modelVision: boolean;
  /** Base URL callers reach this service at (live-view URLs); null: derived from HOST and PORT. */
  publicUrl: string | null;
  /** Where artifacts are kept: files under the data directory, or S3. */
  blobStore: BlobStoreConfig;
  /** The secret the worker's render endpoint checks (OSPREY_RENDERER_SECRET); null when unset or too short. */
  renderSecret: string | null;
  /** Remote browser sessions: warm pool, capacity, proxy countries. */
  browser: BrowserConfig;
  /** The credential vault's keys (OSPREY_VAULT_KEY, OSPREY_VAULT_KEY_PREVIOUS). */
  vault: VaultConfig;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * DATABASE_URL as RDS keeps it: ECS injects the database secret's whole value, which for
 * `-c database=rds` is the JSON of its credentials (functions/config/secret-env.ts makes the URL).
 */
function withDatabaseUrl(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const value = env.DATABASE_URL;
  if (!value || !isJsonSecret(value)) return env;
  try {
    return { ...env, DATABASE_URL: databaseUrlFromSecret(value, "the environment") };
  } catch (err) {
    throw new ConfigError(`invalid configuration: ${(err as Error).message}`);
  }
}

/** Parses the environment; throws a ConfigError whose message is one line naming the variable. */
export function parseConfig(given: Record<string, string | undefined>, cwd = process.cwd()): Config {
  const env = withDatabaseUrl(given);
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue?.path[0] ?? "environment");
    const got = env[name];
    // Values that may carry credentials (keys, database and proxy URLs) are never echoed.
    const secret = /KEY|SECRET|PROXY|DATABASE_URL/.test(name);
    const shown = got === undefined ? "" : ` (got "${secret ? "<redacted>" : got}")`;
    throw new ConfigError(`invalid configuration: ${name} ${issue?.message ?? "is invalid"}${shown}`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(cwd, e.OSPREY_DATA_DIR);
  const driver = e.OSPREY_DB_DRIVER ?? (e.DATABASE_URL ? "pg" : "pglite");
  let database: DatabaseConfig;
  if (driver === "pglite") {
    database = { driver, dataDir: path.join(dataDir, "pglite") };
  } else {
    if (!e.DATABASE_URL)
      throw new ConfigError(`invalid configuration: DATABASE_URL is required when OSPREY_DB_DRIVER is ${driver}`);
    database =
      driver === "pg"
        ? { driver, url: e.DATABASE_URL }
        : { driver, url: e.DATABASE_URL, wsProxy: e.OSPREY_NEON_WS_PROXY ?? null };
  }
  if (e.OSPREY_QUEUE === "sqs" && !e.OSPREY_SQS_QUEUE_URL) {
    throw new ConfigError("invalid configuration: OSPREY_SQS_QUEUE_URL is required when OSPREY_QUEUE is sqs");
  }
  const storageProblem = storageConfigProblem(e);
  if (storageProblem) throw new ConfigError(`invalid configuration: ${storageProblem}`);
  const renderSecret = renderEndpointSecret(env);
  if (e.OSPREY_RENDER_PORT !== undefined && renderSecret === null) {
    throw new ConfigError(
      "invalid configuration: OSPREY_RENDERER_SECRET (at least 32 characters) is required when OSPREY_RENDER_PORT is set",
    );
  }
  if (e.OSPREY_LLM_BASE_URL && !e.OSPREY_LLM_PROVIDER) {
    throw new ConfigError("invalid configuration: OSPREY_LLM_PROVIDER is required when OSPREY_LLM_BASE_URL is set");
  }
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir,
    database,
    allowPrivateHosts: e.OSPREY_ALLOW_PRIVATE_HOSTS,
    fetchNeverExpireHosts: e.OSPREY_FETCH_NEVER_EXPIRE_HOSTS,
    logLevel: e.OSPREY_LOG_LEVEL,
    shutdownTimeoutMs: e.OSPREY_SHUTDOWN_TIMEOUT_MS,
    chromePath: e.CHROME_PATH ?? null,
    model: e.OSPREY_LLM_PROVIDER
      ? {
          provider: e.OSPREY_LLM_PROVIDER,
          baseUrl: e.OSPREY_LLM_BASE_URL ?? null,
          model: e.OSPREY_LLM_MODEL ?? null,
          apiKey: e.OSPREY_LLM_API_KEY ?? null,
        }
      : null,
    modelVision: e.OSPREY_LLM_VISION === "true",
    publicUrl: e.OSPREY_PUBLIC_URL?.replace(/\/$/, "") ?? null,
    blobStore: storageConfig(e, dataDir, e.AWS_REGION),
    renderSecret,
    ...servicesConfig(e),
    ...browserConfig(e),
    ...vaultConfig(e),
  };
}

/** Whether the config exempts host[:port] from the private-address policy (fetch, webhooks). */
export function isPrivateHostAllowed(config: Pick<Config, "allowPrivateHosts">, host: string, port: number): boolean {
  const h = host
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
  return config.allowPrivateHosts.some((a) => a.host === h && (a.port === null || a.port === port));
}

/** The entry points' call: the process environment, parsed. */
export function loadConfig(): Config {
  return parseConfig(process.env);
}

/**
 * The process environment as it is, for the entry points that hand it on rather than parse it
 * here: the Lambda handler (parsed on the first request, so a bad value is an error response, not a
 * crash at import), `dev:cloud` and `infra:deploy` (which pass it to the processes they start), and
 * the CDK app (its output folder). The only read of process.env outside this file's parser.
 */
export function processEnvironment(): Record<string, string | undefined> {
  return process.env;
}
