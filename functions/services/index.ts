import type { Db } from "../db/db.ts";
import type { Clock } from "../lib/clock.ts";
import type { IdGenerator } from "../lib/ids.ts";
import { webhookSecretService } from "../webhooks/webhook-secret.service.ts";
import { accountService } from "./account.service.ts";
import { apiKeyService } from "./api-key.service.ts";
import { rateLimitService } from "./rate-limit.service.ts";

export interface ServiceDeps {
  db: Db;
  clock: Clock;
  ids: IdGenerator;
}

/** Builds every service once from the process's dependencies. */
export function createServices(deps: ServiceDeps) {
  return {
    accounts: accountService(deps),
    apiKeys: apiKeyService(deps),
    rateLimits: rateLimitService(deps),
    webhookSecrets: webhookSecretService(deps),
  };
}

export type Services = ReturnType<typeof createServices>;
