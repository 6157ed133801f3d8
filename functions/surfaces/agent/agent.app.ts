import type { Surface } from "../../http/compose.ts";
import { createRouter } from "../../http/create-router.ts";
import type { ProfileService } from "../../profiles/profile.service.ts";
import type { RunsApi } from "../../runs/build.ts";
import type { Services } from "../../services/index.ts";
import type { SessionService } from "../../sessions/session.service.ts";
import type { VaultService } from "../../vault/vault.service.ts";
import { accountHandlers } from "./account.handlers.ts";
import { getAccountRoute, listApiKeysRoute } from "./account.routes.ts";
import { mountLiveView } from "./live.ts";
import { profileSetupHandlers } from "./profile-setup.handlers.ts";
import { cancelSetupRoute, saveSetupRoute, startSetupRoute } from "./profile-setup.routes.ts";
import { profileHandlers } from "./profiles.handlers.ts";
import * as p from "./profiles.routes.ts";
import { runHandlers } from "./runs.handlers.ts";
import * as r from "./runs.routes.ts";
import { vaultHandlers } from "./vault.handlers.ts";
import { listVaultItemsRoute, syncVaultRoute } from "./vault.routes.ts";

/** {agent_url}: the account routes, automation runs and their readers, the live view, the vault and browser context profiles. */
export function agentSurface(
  services: Services,
  runs: RunsApi,
  vault: VaultService | null = null,
  profiles: ProfileService | null = null,
  sessions: SessionService | null = null,
): Surface {
  const app = createRouter();
  const account = accountHandlers(services);
  app.openapi(getAccountRoute, account.getAccount);
  app.openapi(listApiKeysRoute, account.listApiKeys);
  const h = runHandlers({ runs: runs.service, blobs: runs.blobs, heartbeatMs: runs.heartbeatMs });
  app.openapi(r.runRoute, h.run);
  app.openapi(r.runAsyncRoute, h.runAsync);
  app.openapi(r.runSseRoute, h.runSse);
  app.openapi(r.runBatchRoute, h.runBatch);
  app.openapi(r.listRunsRoute, h.listRuns);
  app.openapi(r.getRunRoute, h.getRun);
  app.openapi(r.cancelRunRoute, h.cancelRun);
  app.openapi(r.listStepsRoute, h.listSteps);
  app.openapi(r.stepScreenshotRoute, h.stepScreenshot);
  app.openapi(r.stepHtmlRoute, h.stepHtml);
  app.openapi(r.stepElementsRoute, h.stepElements);
  app.openapi(r.recordingRoute, h.recording);
  app.openapi(r.recordingFrameRoute, h.recordingFrame);
  mountLiveView(app, { runs: runs.service, blobs: runs.blobs });
  // The vault needs its key: a server without one (an edge function with no OSPREY_VAULT_KEY) has no vault paths.
  if (vault) {
    const v = vaultHandlers(vault);
    app.openapi(syncVaultRoute, v.sync);
    app.openapi(listVaultItemsRoute, v.list);
  }
  // Profiles are served where their states can be sealed: with the vault key, as the vault.
  if (profiles) {
    const ph = profileHandlers(profiles);
    app.openapi(p.listProfilesRoute, ph.list);
    app.openapi(p.createProfileRoute, ph.create);
    app.openapi(p.getProfileRoute, ph.get);
    app.openapi(p.updateProfileRoute, ph.update);
    app.openapi(p.deleteProfileRoute, ph.remove);
    app.openapi(p.forgetProfileDomainRoute, ph.forgetDomain);
    const setup = profileSetupHandlers(profiles, sessions);
    app.openapi(startSetupRoute, setup.start);
    app.openapi(saveSetupRoute, setup.save);
    app.openapi(cancelSetupRoute, setup.cancel);
  }
  return { name: "agent", title: "automation API", prefix: "", app, available: true, publicPathPrefixes: ["/v1/live/"] };
}
