import type { Surface } from "../../http/compose.ts";
import { createRouter } from "../../http/create-router.ts";
import type { RunsApi } from "../../runs/build.ts";
import type { Services } from "../../services/index.ts";
import { accountHandlers } from "./account.handlers.ts";
import { getAccountRoute, listApiKeysRoute } from "./account.routes.ts";
import { mountLiveView } from "./live.ts";
import { runHandlers } from "./runs.handlers.ts";
import * as r from "./runs.routes.ts";

/** {agent_url}: the account routes, automation runs and their readers, and the live view. */
export function agentSurface(services: Services, runs: RunsApi): Surface {
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
  return { name: "agent", title: "automation API", prefix: "", app, available: true, publicPathPrefixes: ["/v1/live/"] };
}
