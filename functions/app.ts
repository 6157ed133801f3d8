import type { OpenAPIHono } from "@hono/zod-openapi";
import type { FetchApi } from "./fetch/build.ts";
import type { AppEnv } from "./http/app-env.ts";
import { composeApp, type Surface } from "./http/compose.ts";
import type { IdGenerator } from "./lib/ids.ts";
import type { Logger } from "./lib/logger.ts";
import type { ProfileService } from "./profiles/profile.service.ts";
import type { RunsApi } from "./runs/build.ts";
import type { SearchService } from "./search/search.service.ts";
import type { Services } from "./services/index.ts";
import type { SessionService } from "./sessions/session.service.ts";
import { agentSurface } from "./surfaces/agent/agent.app.ts";
import { browserSurface } from "./surfaces/browser/browser.app.ts";
import { fetchSurface } from "./surfaces/fetch/fetch.app.ts";
import { searchSurface } from "./surfaces/search/search.app.ts";
import type { VaultService } from "./vault/vault.service.ts";
import { VERSION } from "./version.ts";

export { VERSION };

export interface AppDeps {
  services: Services;
  ids: IdGenerator;
  logger: Logger;
  /** The fetch API; null serves its paths as "not available". */
  fetch: FetchApi | null;
  /** The run service and its artifact store. */
  runs: RunsApi;
  /** The search API; null or absent serves its paths as "not available" (search disabled). */
  search?: SearchService | null;
  /** Remote browser sessions; null or absent serves their paths as "not available". */
  sessions?: SessionService | null;
  /** The credential vault (spec 4.3); null or absent: no vault paths (no vault key on this server). */
  vault?: VaultService | null;
  /** Browser Context Profiles (spec 2.3, 4.4); null or absent: no profile paths (no vault key to seal their states). */
  profiles?: ProfileService | null;
}

export function allSurfaces(deps: AppDeps): Surface[] {
  return [
    agentSurface(deps.services, deps.runs, deps.vault ?? null, deps.profiles ?? null, deps.sessions ?? null),
    fetchSurface(deps.fetch, deps.services.rateLimits),
    searchSurface(deps.search ?? null),
    browserSurface(deps.sessions ?? null),
  ];
}

/** Single-machine mode: every surface in one app, each under its prefix (ARCHITECTURE.md). */
export function createLocalApp(deps: AppDeps): OpenAPIHono<AppEnv> {
  return composeApp({ ids: deps.ids, logger: deps.logger, apiKeys: deps.services.apiKeys, version: VERSION }, allSurfaces(deps));
}

/** Cloud mode: one surface at its host root (each Lambda serves one). */
export function createSurfaceApp(deps: AppDeps, name: Surface["name"]): OpenAPIHono<AppEnv> {
  const surface = allSurfaces(deps).find((s) => s.name === name);
  if (!surface) throw new Error(`unknown surface ${name}`);
  return composeApp({ ids: deps.ids, logger: deps.logger, apiKeys: deps.services.apiKeys, version: VERSION }, [
    { ...surface, prefix: "" },
  ]);
}

/**
 * A browser container's own API (`osprey worker` with OSPREY_BROWSER_PORT): the browser session
 * surface at its host root, behind the load balancer that serves {browser_url} (websockets do not
 * fit Lambda). Authentication, errors and documents as everywhere else.
 */
export function createBrowserApp(deps: Pick<AppDeps, "services" | "ids" | "logger"> & { sessions: SessionService }) {
  return composeApp({ ids: deps.ids, logger: deps.logger, apiKeys: deps.services.apiKeys, version: VERSION }, [
    { ...browserSurface(deps.sessions), prefix: "" },
  ]);
}
