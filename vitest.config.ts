import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { BASELINE_WASM_FLAG } from "./containers/cli/module-hooks.ts";

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
    // Two test files at once even on a 2-core machine (vitest's default there is one): most files
    // wait on Chromium, child processes and sockets more than they compute. On the 2-core CI machine
    // the whole suite went from ~28 min of test files run one by one to ~15 min.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
