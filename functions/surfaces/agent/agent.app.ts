import type { Surface } from "../../http/compose.ts";
import { createRouter } from "../../http/create-router.ts";
import type { Services } from "../../services/index.ts";
import { accountHandlers } from "./account.handlers.ts";
import { getAccountRoute, listApiKeysRoute } from "./account.routes.ts";

/** {agent_url}: automation runs, vault and profiles land here; today the account routes. */
export function agentSurface(services: Services): Surface {
  const app = createRouter();
  const account = accountHandlers(services);
  app.openapi(getAccountRoute, account.getAccount);
  app.openapi(listApiKeysRoute, account.listApiKeys);
  return { name: "agent", title: "automation API", prefix: "", app, available: true };
}
