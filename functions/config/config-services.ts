import { z } from "zod";
import { emptyAsUndefined, httpUrl, optionalPort, optionalString } from "./config-env.ts";

/**
 * The run queue, worker, run lease and search API parts of the configuration: their environment
 * fields (part of config.ts's schema, in this order) and their mapping into `Config`. Reads no
 * environment itself; config.ts passes the parsed variables in.
 */

export const ServicesEnvFields = {
  OSPREY_QUEUE: z.preprocess(
    emptyAsUndefined,
    z.enum(["postgres", "sqs"], { error: "must be postgres or sqs" }).default("postgres"),
  ),
  OSPREY_SQS_QUEUE_URL: z.preprocess(emptyAsUndefined, z.string().refine(URL.canParse, "must be a URL").optional()),
  OSPREY_SQS_DLQ_URL: z.preprocess(emptyAsUndefined, z.string().refine(URL.canParse, "must be a URL").optional()),
  OSPREY_SQS_ENDPOINT: z.preprocess(emptyAsUndefined, z.string().refine(URL.canParse, "must be a URL").optional()),
  AWS_REGION: z.preprocess(emptyAsUndefined, z.string().default("us-east-1")),
  OSPREY_WORKER: z.preprocess(emptyAsUndefined, z.enum(["on", "off"], { error: "must be on or off" }).default("on")),
  OSPREY_WORKER_CONCURRENCY: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number({ error: "must be an integer" })
      .int("must be an integer")
      .min(1, "must be at least 1")
      .max(64, "must be at most 64")
      .default(2),
  ),
  OSPREY_HEALTH_PORT: optionalPort,
  OSPREY_RENDER_PORT: optionalPort,
  OSPREY_SEARCH: z.preprocess(emptyAsUndefined, z.enum(["on", "off"], { error: "must be on or off" }).default("on")),
  OSPREY_SEARCH_SHARE_PUBLIC_PAGES: z.preprocess(
    emptyAsUndefined,
    z.enum(["true", "false"], { error: "must be true or false" }).default("false"),
  ),
  OSPREY_SEARXNG_URL: z.preprocess(emptyAsUndefined, httpUrl.optional()),
  OSPREY_BRAVE_API_KEY: optionalString,
  OSPREY_BRAVE_URL: z.preprocess(emptyAsUndefined, httpUrl.optional()),
  OSPREY_OPENALEX_URL: z.preprocess(emptyAsUndefined, httpUrl.optional()),
  OSPREY_OPENALEX_API_KEY: optionalString,
  OSPREY_OPENALEX_MAILTO: optionalString,
  OSPREY_RUN_LEASE_SECONDS: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number({ error: "must be an integer" })
      .int("must be an integer")
      .min(2, "must be at least 2")
      .max(900, "must be at most 900")
      .default(30),
  ),
};

export type ServicesEnv = z.output<z.ZodObject<typeof ServicesEnvFields>>;

export type QueueConfig =
  | { kind: "postgres" }
  | { kind: "sqs"; queueUrl: string; deadLetterQueueUrl: string | null; endpoint: string | null; region: string };

/** The search API: off answers 404 (spec 7.1 "Search API not available"); upstreams are optional. */
export interface SearchConfig {
  enabled: boolean;
  /**
   * Pages an account fetches are searchable by that account only; true also shares with every
   * account those that are public by every sign (search/page-visibility.ts).
   */
  sharePublicPages: boolean;
  searxngUrl: string | null;
  braveApiKey: string | null;
  /** Base of the Brave API (default https://api.search.brave.com); used only with braveApiKey. */
  braveUrl: string | null;
  /** Set to use OpenAlex for research papers (its public API: https://api.openalex.org). */
  openalexUrl: string | null;
  openalexApiKey: string | null;
  openalexMailto: string | null;
}

export interface ServicesConfig {
  queue: QueueConfig;
  /** Whether `serve` runs the in-process run worker and webhook dispatcher. */
  worker: boolean;
  workerConcurrency: number;
  /** `osprey worker` answers GET /healthz on this port (the container's HEALTHCHECK); null: no listener. */
  workerHealthPort: number | null;
  /**
   * `osprey worker` serves the internal render endpoint (the edge fetch's remote renderer) on this
   * port, with OSPREY_RENDERER_SECRET; null: no render endpoint (the default).
   */
  workerRenderPort: number | null;
  runLeaseMs: number;
  search: SearchConfig;
}

/** The queue, worker and search settings from already-validated variables. */
export function servicesConfig(e: ServicesEnv): ServicesConfig {
  return {
    queue:
      e.OSPREY_QUEUE === "sqs" && e.OSPREY_SQS_QUEUE_URL
        ? {
            kind: "sqs",
            queueUrl: e.OSPREY_SQS_QUEUE_URL,
            deadLetterQueueUrl: e.OSPREY_SQS_DLQ_URL ?? null,
            endpoint: e.OSPREY_SQS_ENDPOINT ?? null,
            region: e.AWS_REGION,
          }
        : { kind: "postgres" },
    worker: e.OSPREY_WORKER === "on",
    workerConcurrency: e.OSPREY_WORKER_CONCURRENCY,
    workerHealthPort: e.OSPREY_HEALTH_PORT ?? null,
    workerRenderPort: e.OSPREY_RENDER_PORT ?? null,
    runLeaseMs: e.OSPREY_RUN_LEASE_SECONDS * 1000,
    search: {
      enabled: e.OSPREY_SEARCH === "on",
      sharePublicPages: e.OSPREY_SEARCH_SHARE_PUBLIC_PAGES === "true",
      searxngUrl: e.OSPREY_SEARXNG_URL?.replace(/\/$/, "") ?? null,
      braveApiKey: e.OSPREY_BRAVE_API_KEY ?? null,
      braveUrl: e.OSPREY_BRAVE_URL?.replace(/\/$/, "") ?? null,
      openalexUrl: e.OSPREY_OPENALEX_URL?.replace(/\/$/, "") ?? null,
      openalexApiKey: e.OSPREY_OPENALEX_API_KEY ?? null,
      openalexMailto: e.OSPREY_OPENALEX_MAILTO ?? null,
    },
  };
}
