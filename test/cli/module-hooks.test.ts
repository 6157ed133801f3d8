import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { resolveInstalledRelative } from "../../containers/cli/module-hooks.ts";
import { tempDir } from "../helpers/process.ts";

/**
 * The resolve hook that spares Node's per-module package.json work for relative imports inside
 * installed packages (containers/cli/module-hooks.ts). It must answer only what Node itself would
 * answer the same way, and leave everything else (bare names, missing files, CommonJS scopes,
 * our own sources) to Node.
 */

const root = tempDir("osprey-hooks-");
afterAll(() => root.cleanup());

function write(rel: string, text: string): string {
  const file = path.join(root.dir, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

const url = (file: string) => pathToFileURL(file).href;

// An ES module package with a nested folder (no package.json of its own), a CommonJS package with
// one .mjs file, and an ES module package holding a folder that declares itself CommonJS.
const esmEntry = write("node_modules/esm-pkg/index.js", 'export { inner } from "./lib/inner.js";\n');
write("node_modules/esm-pkg/package.json", JSON.stringify({ name: "esm-pkg", type: "module", exports: { ".": "./index.js" } }));
const esmInner = write(
  "node_modules/esm-pkg/lib/inner.js",
  'import { leaf } from "../leaf.js";\nexport const inner = () => leaf;\n',
);
const esmLeaf = write("node_modules/esm-pkg/leaf.js", "export const leaf = {};\n");
write("node_modules/esm-pkg/cjs/package.json", JSON.stringify({ type: "commonjs" }));
write("node_modules/esm-pkg/cjs/a.js", "module.exports = 1;\n");
const cjsEntry = write("node_modules/cjs-pkg/index.js", "module.exports = 2;\n");
write("node_modules/cjs-pkg/package.json", JSON.stringify({ name: "cjs-pkg" }));
const cjsMjs = write("node_modules/cjs-pkg/esm.mjs", "export default 3;\n");
const ownSource = write("src/app.js", "export {};\n");
write("src/other.js", "export {};\n");

describe("resolveInstalledRelative", () => {
  it("answers a relative .js import inside a type:module package, from a nested folder too", () => {
    expect(resolveInstalledRelative("./lib/inner.js", url(esmEntry))).toEqual({ url: url(esmInner), format: "module" });
    expect(resolveInstalledRelative("../leaf.js", url(esmInner))).toEqual({ url: url(esmLeaf), format: "module" });
  });

  it("answers a .mjs file in a CommonJS package", () => {
    expect(resolveInstalledRelative("./esm.mjs", url(cjsEntry))).toEqual({ url: url(cjsMjs), format: "module" });
  });

  it("leaves CommonJS scopes, missing files, bare names, folders and query strings to Node", () => {
    expect(resolveInstalledRelative("./index.js", url(cjsEntry))).toBeUndefined();
    expect(resolveInstalledRelative("./cjs/a.js", url(esmEntry))).toBeUndefined();
    expect(resolveInstalledRelative("./missing.js", url(esmEntry))).toBeUndefined();
    expect(resolveInstalledRelative("./lib", url(esmEntry))).toBeUndefined();
    expect(resolveInstalledRelative("./lib/inner", url(esmEntry))).toBeUndefined();
    expect(resolveInstalledRelative("esm-pkg", url(ownSource))).toBeUndefined();
    expect(resolveInstalledRelative("./leaf.js?x=1", url(esmEntry))).toBeUndefined();
    expect(resolveInstalledRelative("./leaf.js", undefined)).toBeUndefined();
    expect(resolveInstalledRelative("./leaf.js", "data:text/javascript,export{}")).toBeUndefined();
  });

  it("leaves our own sources (outside node_modules) to Node", () => {
    expect(resolveInstalledRelative("./other.js", url(ownSource))).toBeUndefined();
  });

  it("does not follow a relative path out of node_modules", () => {
    expect(resolveInstalledRelative("../../src/app.js", url(esmEntry))).toBeUndefined();
  });

  it("gives a process the same modules as Node's own resolution (one instance per file)", () => {
    const hooks = url(path.resolve("containers/cli/module-hooks.ts"));
    const probe = write(
      "probe.mjs",
      `if (process.argv[2] === "hooks") (await import(${JSON.stringify(hooks)})).installModuleHooks();
const { inner } = await import("esm-pkg");
const { leaf } = await import(${JSON.stringify(url(esmLeaf))});
const cjs = await import("cjs-pkg");
console.log(JSON.stringify({ same: inner() === leaf, cjs: cjs.default }));
`,
    );
    const run = (mode: string) =>
      execFileSync(process.execPath, ["--experimental-strip-types", "--disable-warning=ExperimentalWarning", probe, mode], {
        cwd: root.dir,
        encoding: "utf8",
      }).trim();
    expect(run("hooks")).toBe('{"same":true,"cjs":2}');
    expect(run("plain")).toBe(run("hooks"));
  });
});
