import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { BASELINE_WASM_FLAG } from "./containers/cli/module-hooks.ts";
import { LongestFirstSequencer } from "./test/sequence/sequencer.ts";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "functions/**/*.test.ts", "containers/**/*.test.ts", "schema/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/setup-process.ts"],
    // Test files are short-lived: their PGlite stays on V8's baseline code (containers/cli/module-hooks.ts).
    execArgv: [BASELINE_WASM_FLAG],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // A worker runs file after file with its modules loaded once (vitest's default starts a fresh
    // worker and imports the app again for each of the 174 files). Full suite on this 2-core
    // machine, same checkout: 348 s against 413 s isolated (load 5-11 from other work in both).
    // A file must leave what it patches as it found it (a spy it makes at its top is restored in
    // afterAll: test/net/address-policy.test.ts once broke resolve-public's spies this way).
    isolate: false,
    // Two test files at once even on a 2-core machine (vitest's default there is one): most files
    // wait on Chromium, child processes and sockets more than they compute. On the 2-core CI machine
    // the whole suite went from ~28 min of test files run one by one to ~15 min.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The longest files first, from this machine's last run or the recorded durations (test/sequence).
    sequence: { sequencer: LongestFirstSequencer },
  },
});
