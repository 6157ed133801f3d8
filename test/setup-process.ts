/**
 * Runs in every test worker before its test file: the same start-up speed-ups the CLI and the
 * server use (containers/cli/module-hooks.ts).
 */
import { installModuleHooks } from "../containers/cli/module-hooks.ts";

installModuleHooks();
