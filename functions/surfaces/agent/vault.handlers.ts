import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/app-env.ts";
import type { VaultService } from "../../vault/vault.service.ts";
import type { listVaultItemsRoute, syncVaultRoute } from "./vault.routes.ts";

export function vaultHandlers(vault: VaultService) {
  const sync: RouteHandler<typeof syncVaultRoute, AppEnv> = async (c) => c.json(await vault.sync(c.get("auth")), 200);
  const list: RouteHandler<typeof listVaultItemsRoute, AppEnv> = async (c) =>
    c.json({ items: await vault.list(c.get("auth")) }, 200);
  return { sync, list };
}
