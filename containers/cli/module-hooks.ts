/**
 * Start-up speed for every Node process Osprey runs from its sources (the CLI, the server, the
 * test workers). Three things, each skipped where Node lacks it:
 *
 * - A resolve hook for relative imports inside installed packages. Node decides whether a `.js`
 *   file is ESM from its package's `package.json`, and Node 24 re-reads the package's whole
 *   `exports` map for every module it resolves: drizzle-orm's package.json is 179 KB with 447
 *   exports, so its 112 modules cost ~0.8 s of resolution alone (`require()` of the same package
 *   takes ~0.1 s). The hook answers `./x.js` from a module in `node_modules` itself, with the
 *   package's `type` read once per directory. It only answers what it can answer exactly: an
 *   existing file named with its extension, in a package that declares `"type": "module"` (or a
 *   `.mjs` file); anything else goes to Node's own resolution, errors included.
 * - For a short-lived command, a WebAssembly tier-up budget high enough that the embedded
 *   database (PGlite, 8 MB of WebAssembly) stays on V8's baseline code. With the default budget,
 *   PGlite's start makes hundreds of functions "hot" and queues them for the optimizing compiler,
 *   and Node waits for that queue before it exits: ~2 s of CPU after a command had already
 *   finished in ~1 s. A server keeps the default, where the optimized code pays off.
 * - Node's on-disk compile cache (`module.enableCompileCache`), which also keeps the TypeScript
 *   that Node has stripped, so a second start skips parsing and stripping our sources.
 */
import { readFileSync, statSync } from "node:fs";
import module from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import v8 from "node:v8";

const INSTALLED = "/node_modules/";
const REGISTERED = Symbol.for("osprey.module-hooks");

/** Whether the nearest package.json above a directory says `"type": "module"`, cached per directory. */
const moduleScope = new Map<string, boolean>();

function isModuleScope(dir: string): boolean {
  const known = moduleScope.get(dir);
  if (known !== undefined) return known;
  let answer: boolean;
  try {
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { type?: unknown };
    answer = manifest.type === "module";
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const parent = dirname(dir);
    // No package.json here: the scope is the parent's (Node stops at node_modules and the root).
    answer =
      (code === "ENOENT" || code === "ENOTDIR") && parent !== dir && !dir.endsWith("/node_modules")
        ? isModuleScope(parent)
        : false;
  }
  moduleScope.set(dir, answer);
  return answer;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The URL and format of a relative import from an installed ES module, or undefined to let Node decide. */
export function resolveInstalledRelative(
  specifier: string,
  parentURL: string | undefined,
): { url: string; format: "module" } | undefined {
  if (!parentURL?.startsWith("file:") || !parentURL.includes(INSTALLED)) return undefined;
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) return undefined;
  if (!specifier.endsWith(".js") && !specifier.endsWith(".mjs")) return undefined;
  const url = new URL(specifier, parentURL);
  if (url.search || url.hash) return undefined;
  const path = fileURLToPath(url);
  if (!path.includes(INSTALLED) || !isFile(path)) return undefined;
  if (!path.endsWith(".mjs") && !isModuleScope(dirname(path))) return undefined;
  return { url: pathToFileURL(path).href, format: "module" };
}

/** Registers the hook and the compile cache once per process; a no-op on a Node without them. */
export function installModuleHooks(): void {
  const state = globalThis as { [REGISTERED]?: boolean };
  if (state[REGISTERED]) return;
  state[REGISTERED] = true;
  if (typeof module.registerHooks === "function") {
    module.registerHooks({
      resolve(specifier, context, nextResolve) {
        const answer = resolveInstalledRelative(specifier, context.parentURL);
        return answer ? { ...answer, shortCircuit: true } : nextResolve(specifier, context);
      },
    });
  }
  module.enableCompileCache?.();
}

/**
 * The V8 flag for a process that runs briefly: a WebAssembly tier-up budget no short command
 * exhausts (V8 13.6's default is 13 M), so PGlite stays on baseline code (see above). Test workers
 * and the servers tests start pass it on their command line.
 */
export const BASELINE_WASM_FLAG = "--wasm-tiering-budget=1000000000";

/** For a process that runs one command and exits; the flag counts for modules compiled after it. */
export function preferBaselineWasm(): void {
  v8.setFlagsFromString(BASELINE_WASM_FLAG);
}
