import { ConfigError, parseConfig, processEnvironment } from "../../functions/config/config.ts";
import { ecsTaskConfig } from "../../functions/config/config-ecs.ts";
import { openDatabase } from "../../functions/db/open-database.ts";
import { createLogger } from "../../functions/lib/logger.ts";
import { sessionDemandRepo } from "../../functions/repos/session-demand.repo.ts";
import { startWorker } from "../local/worker-main.ts";
import { runsInFlight, taskAddress, taskProtection } from "./task-protection.ts";

/**
 * The browser container's command on ECS (infra/stacks/containers-stack.ts): `osprey worker` with
 * what only the task knows about itself.
 * - OSPREY_BROWSER_HOST_URL, where the other containers reach this one's sessions, is its private
 *   address (task metadata endpoint v4) and OSPREY_BROWSER_PORT.
 * - Scale-in protection while a run is in flight (the worker's /healthz) or a session is open here
 *   (browser_sessions by host URL); given up after OSPREY_IDLE_UNPROTECT_SECONDS idle.
 * Outside ECS (no metadata endpoint) it is `osprey worker` as it is.
 */
async function main(): Promise<void> {
  const env = processEnvironment();
  const ecs = ecsTaskConfig(env);
  let hostUrl = env.OSPREY_BROWSER_HOST_URL;
  if (!hostUrl && ecs.metadataUri && env.OSPREY_BROWSER_PORT) {
    hostUrl = `http://${await taskAddress(ecs.metadataUri)}:${env.OSPREY_BROWSER_PORT}`;
  }
  const config = parseConfig({ ...env, ...(hostUrl ? { OSPREY_BROWSER_HOST_URL: hostUrl } : {}) });
  await startWorker(config, { print: (s) => process.stdout.write(s) });
  if (!ecs.agentUri || config.workerHealthPort === null) return;
  const logger = createLogger(config.logLevel);
  const healthUrl = `http://127.0.0.1:${config.workerHealthPort}/healthz`;
  // Its own connection, one at most: a count every few seconds.
  const sessions =
    config.browser.hostUrl && config.database.driver !== "pglite"
      ? sessionDemandRepo((await openDatabase(config.database, { max: 1, idleTimeoutMs: 30_000 })).db)
      : null;
  const host = config.browser.hostUrl;
  taskProtection({
    agentUri: ecs.agentUri,
    idleMs: ecs.idleUnprotectMs,
    logger,
    busy: async () => {
      if ((await runsInFlight(healthUrl)) > 0) return true;
      return sessions && host ? (await sessions.openSessionsOn(host)) > 0 : false;
    },
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`osprey: ${err instanceof ConfigError ? err.message : String((err as Error)?.stack ?? err)}\n`);
  process.exit(1);
});
