import type { SessionLaunch } from "../../functions/sessions/session-host.ts";
import type { PrepareTarget } from "./live-session.ts";

/**
 * What every new page of a session gets before it runs: the session's viewport, and in stealth
 * mode the fingerprint (stealth.ts), the same implementation runs use for browser_profile stealth.
 */
export function sessionTargetSetup(launch: SessionLaunch, _version: string): PrepareTarget {
  return async (send, target) => {
    if (target.type !== "page") return;
    await send("Emulation.setDeviceMetricsOverride", {
      width: launch.viewport.width,
      height: launch.viewport.height,
      deviceScaleFactor: 1,
      mobile: false,
    });
  };
}
