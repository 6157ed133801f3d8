import type { OpenAPIHono } from "@hono/zod-openapi";
import { createLocalApp } from "../../functions/app.ts";
import type { Db } from "../../functions/db/db.ts";
import type { AppEnv } from "../../functions/http/app-env.ts";
import type { Clock } from "../../functions/lib/clock.ts";
import { defaultIds } from "../../functions/lib/ids.ts";
import { type Logger, silentLogger } from "../../functions/lib/logger.ts";
import { createServices, type Services } from "../../functions/services/index.ts";
import type { Plan } from "../../schema/plans.ts";

/** A clock tests can move. */
export class TestClock implements Clock {
  private t: number;
  constructor(start = Date.parse("2026-11-21T10:00:00.000Z")) {
    this.t = start;
  }
  now(): Date {
    return new Date(this.t);
  }
  set(iso: string | number): void {
    this.t = typeof iso === "number" ? iso : Date.parse(iso);
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

export interface TestContext {
  app: OpenAPIHono<AppEnv>;
  services: Services;
  clock: TestClock;
  /** Creates an account with one key and returns the key. */
  newKey(opts?: { plan?: Plan; entitlements?: string[] }): Promise<{ key: string; accountId: string; keyId: string }>;
  /** app.request with the X-API-Key header set. */
  call(key: string, path: string, init?: RequestInit): Promise<Response>;
}

export function createTestContext(db: Db, opts: { logger?: Logger; clock?: TestClock } = {}): TestContext {
  const clock = opts.clock ?? new TestClock();
  const services = createServices({ db, clock, ids: defaultIds });
  const app = createLocalApp({ services, ids: defaultIds, logger: opts.logger ?? silentLogger });
  return {
    app,
    services,
    clock,
    async newKey({ plan = "pro", entitlements = [] } = {}) {
      const account = await services.accounts.create({ plan, entitlements });
      const { key, row } = await services.apiKeys.create({ accountId: account.id });
      return { key, accountId: account.id, keyId: row.id };
    },
    async call(key, path, init = {}) {
      const headers = new Headers(init.headers);
      headers.set("x-api-key", key);
      return app.request(path, { ...init, headers });
    },
  };
}
