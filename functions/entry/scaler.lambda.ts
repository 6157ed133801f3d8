import { processEnvironment } from "../config/config.ts";
import { openScaler, passOf } from "../scaler/scaler-root.ts";

/**
 * The scaler's Lambda handler (functions/scaler): one pass per invocation, from the agent function's
 * nudge after it enqueues a run, from the browser front door's nudge when a session finds no
 * container (`{trigger: "session", pending: 1}`), and from a one-minute schedule. Bundled by `npm run build` with the
 * edge's rules (no PGlite, pg, puppeteer or containers/).
 */
let root: ReturnType<typeof openScaler> | null = null;

export async function handler(event: unknown) {
  root ??= openScaler(processEnvironment()).catch((err: unknown) => {
    root = null;
    throw err;
  });
  const { scaler } = await root;
  const { trigger, pendingSessions } = passOf(event);
  const pass = await scaler.pass(trigger, pendingSessions);
  return { trigger: pass.trigger, demand: pass.demand, capacity: pass.capacity, decision: pass.decision };
}
