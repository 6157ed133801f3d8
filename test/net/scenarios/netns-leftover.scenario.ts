import { spawn } from "node:child_process";
import { report } from "../../helpers/netns/scenario.ts";

/**
 * Starts a long-lived grandchild tagged with NETNS_TOKEN (detached, in a process group of its own,
 * as a careless scenario might), then exits (MODE=exit) or hangs (MODE=hang): either way none of
 * its processes may outlive runInNetns.
 */

const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", String(process.env.NETNS_TOKEN)], {
  detached: true,
  stdio: "ignore",
});
child.unref();
await new Promise((resolve) => child.once("spawn", resolve));
report({ started: true });
if (process.env.MODE === "hang") setInterval(() => {}, 1000);
