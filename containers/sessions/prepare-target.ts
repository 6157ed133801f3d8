import type { SessionLaunch } from "../../functions/sessions/session-host.ts";
import { fingerprintFor } from "../browser/fingerprint.ts";
import { applyStealthToTarget } from "../browser/stealth.ts";
import type { PrepareTarget } from "./live-session.ts";

/**
 * What every new target of a session gets before it runs. light: the session's viewport on each
 * page. stealth: the fingerprint of the session's seed (stealth.ts, the implementation runs use for
 * browser_profile stealth) on pages, frames and workers, with the timezone and locale of the proxy
 * country; a page also auto-attaches its dedicated workers, paused, so they get it before their
 * first line runs.
 */
export function sessionTargetSetup(launch: SessionLaunch, version: string): PrepareTarget {
  const fp =
    launch.mode === "stealth"
      ? fingerprintFor({
          seed: launch.fingerprintSeed,
          browserVersion: version,
          countryCode: launch.countryCode,
          viewport: launch.viewport,
        })
      : null;
  return async (send, target) => {
    if (!fp) {
      if (target.type !== "page") return;
      await send("Emulation.setDeviceMetricsOverride", {
        width: launch.viewport.width,
        height: launch.viewport.height,
        deviceScaleFactor: 1,
        mobile: false,
      });
      return;
    }
    const applied = applyStealthToTarget(send, fp, target.type);
    if (target.type === "page") {
      await send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });
    }
    await applied;
  };
}
