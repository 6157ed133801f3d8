import type { AllowedHost } from "../../functions/config/config.ts";
import type { Db } from "../../functions/db/db.ts";
import type { Clock } from "../../functions/lib/clock.ts";
import type { Logger } from "../../functions/lib/logger.ts";
import type { Resolver } from "../../functions/net/address-policy.ts";

/** The webhook dispatcher's options and interface (see dispatcher.ts). */

export interface WebhookDispatcherOptions {
  db: Db;
  clock?: Clock;
  logger: Logger;
  /** OSPREY_ALLOW_PRIVATE_HOSTS: host[:port] entries exempt from the address policy. */
  allowPrivateHosts: AllowedHost[];
  resolver?: Resolver;
  /** Trusted CA certificates replacing Node's default roots (tests). */
  ca?: string | Buffer;
  timeoutMs?: number;
  /** Delays (ms) before each retry; its length is the number of retries. */
  schedule?: readonly number[];
  pollIntervalMs?: number;
  /** Deliveries claimed and sent at once. */
  concurrency?: number;
  /** How long stop() waits for sends in flight. Default: timeoutMs + 1 s. */
  drainTimeoutMs?: number;
}

export interface RunOnceResult {
  claimed: number;
  delivered: number;
  retried: number;
  failed: number;
  /** Results not written because the claim was lost (expired and taken by another dispatcher). */
  lost: number;
}

export interface WebhookDispatcher {
  start(): void;
  /** Stops polling and waits (bounded) for sends in flight to finish and be recorded. */
  stop(): Promise<void>;
  /** Claims the due deliveries (up to `concurrency`), sends them and records the outcomes. */
  runOnce(): Promise<RunOnceResult>;
}
