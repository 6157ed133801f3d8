/**
 * Runs in every test worker before each test file: the same start-up speed-ups the CLI and the
 * server use (containers/cli/module-hooks.ts), and a check that the file leaves the process's
 * networking as it found it. Workers are reused across files (vitest.config.ts, isolate: false),
 * so a patch a file forgets (a spy on net.Socket.prototype.connect, the fuzzer's network guard)
 * would otherwise break whichever file runs next in that worker, far from its cause.
 */
import net from "node:net";
import { afterAll } from "vitest";
import { installModuleHooks } from "../containers/cli/module-hooks.ts";

installModuleHooks();

const state = globalThis as { __ospreyRealConnect?: typeof net.Socket.prototype.connect };
state.__ospreyRealConnect ??= net.Socket.prototype.connect;

/** The settings our code reads from the environment: a file that sets one puts it back. */
const SETTING = /^(OSPREY_|AWS_|DATABASE_URL$|CHROME_PATH$|HTTPS?_PROXY$|NO_PROXY$)/i;
const settings = () => new Map(Object.entries(process.env).filter(([k]) => SETTING.test(k)));
const settingsBefore = settings();
/** The names (never the values: a developer's real credentials may be among them) that changed. */
const changedSettings = () => {
  const now = settings();
  return [...new Set([...settingsBefore.keys(), ...now.keys()])].filter((k) => settingsBefore.get(k) !== now.get(k)).sort();
};

// Registered first, so it runs after the file's own afterAll hooks (vitest runs them as a stack).
afterAll(() => {
  if (net.Socket.prototype.connect !== state.__ospreyRealConnect) {
    net.Socket.prototype.connect = state.__ospreyRealConnect as typeof net.Socket.prototype.connect;
    throw new Error("this test file left net.Socket.prototype.connect patched (restore spies and guards in afterAll)");
  }
  const changed = changedSettings();
  if (changed.length > 0) {
    throw new Error(
      `this test file changed ${changed.join(", ")} in the process environment and left it so (test/helpers/env.ts)`,
    );
  }
});
