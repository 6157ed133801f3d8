import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/app-env.ts";
import type { AccountView } from "../../services/account.service.ts";
import type { ApiKeyRecord } from "../../services/api-key.service.ts";
import type { Services } from "../../services/index.ts";
import type { getAccountRoute, listApiKeysRoute } from "./account.routes.ts";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function accountToWire(a: AccountView) {
  return {
    id: a.id,
    name: a.name,
    plan: a.plan,
    entitlements: a.entitlements,
    limits: {
      search_rpm: a.limits.searchRpm,
      fetch_upm: a.limits.fetchUpm,
      max_pending_runs: a.limits.maxPendingRuns,
      max_browser_sessions: a.limits.maxBrowserSessions,
      browser_sessions_per_minute: a.limits.browserSessionsPerMinute,
    },
    credit_balance: a.creditBalance,
    created_at: a.createdAt.toISOString(),
  };
}

export function apiKeyToWire(k: ApiKeyRecord) {
  return {
    id: k.id,
    prefix: k.prefix,
    name: k.name,
    scope: k.scope,
    sub_user_id: k.subUserId,
    created_at: k.createdAt.toISOString(),
    last_used_at: iso(k.lastUsedAt),
    expires_at: iso(k.expiresAt),
    revoked_at: iso(k.revokedAt),
  };
}

export function accountHandlers(services: Services) {
  const getAccount: RouteHandler<typeof getAccountRoute, AppEnv> = (c) => c.json(accountToWire(c.get("auth").account), 200);

  const listApiKeys: RouteHandler<typeof listApiKeysRoute, AppEnv> = async (c) => {
    const page = await services.apiKeys.listForAccount(c.get("auth").account.id, c.req.valid("query"));
    return c.json({ ...page, items: page.items.map(apiKeyToWire) }, 200);
  };

  return { getAccount, listApiKeys };
}
