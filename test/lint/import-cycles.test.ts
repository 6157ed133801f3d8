import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildImportGraph, findCycles, importSpecifiers } from "./import-cycles.ts";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A throw-away tree of files (path → source) under a fresh temporary root. */
function fixture(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "import-cycles-"));
  roots.push(root);
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), source);
  }
  return root;
}

describe("import-cycle check", () => {
  it("reports a cycle made of type-only, re-export and dynamic imports, with the files in import order", () => {
    const root = fixture({
      "functions/a.ts": 'import type { B } from "./b/b.ts";\nexport type A = B;\n',
      "functions/b/b.ts": 'export { c } from "../../schema/c.ts";\nexport type B = string;\n',
      "schema/c.ts": 'export async function c() {\n  return import("../functions/a.ts");\n}\n',
      "functions/leaf.ts": 'import { c } from "../schema/c.ts";\nimport { z } from "zod";\nexport const leaf = [c, z];\n',
    });
    expect(findCycles(buildImportGraph(root, ["functions", "schema"]))).toEqual([
      {
        files: ["functions/a.ts", "functions/b/b.ts", "schema/c.ts"],
        cycle: ["functions/a.ts", "functions/b/b.ts", "schema/c.ts", "functions/a.ts"],
      },
    ]);
  });

  it("reports nothing for a graph without a cycle, whatever its comments say", () => {
    const root = fixture({
      "functions/a.ts": 'import { b } from "./b.ts";\nimport { c } from "./c.ts";\nexport const a = [b, c];\n',
      "functions/b.ts": 'import { c } from "./c.ts";\nexport const b = c;\n',
      "functions/c.ts": '// import { a } from "./a.ts";\n/* export * from "./b.ts"; */\nexport const c = 1;\n',
    });
    const graph = buildImportGraph(root, ["functions"]);
    expect(graph.get("functions/a.ts")).toEqual(["functions/b.ts", "functions/c.ts"]);
    expect(graph.get("functions/c.ts")).toEqual([]);
    expect(findCycles(graph)).toEqual([]);
  });

  it("reports one cycle per tangle, and a file that imports itself", () => {
    const graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["a.ts", "c.ts"]],
      ["c.ts", ["d.ts"]],
      ["d.ts", ["c.ts", "e.ts"]],
      ["e.ts", ["e.ts"]],
    ]);
    expect(findCycles(graph).map((c) => c.cycle)).toEqual([
      ["a.ts", "b.ts", "a.ts"],
      ["c.ts", "d.ts", "c.ts"],
      ["e.ts", "e.ts"],
    ]);
  });

  it("reads multi-line, side-effect and dynamic import specifiers", () => {
    const source = [
      "import {",
      "  one,",
      '  type Two } from "./one.ts";',
      'import "./side-effect.ts";',
      'export * as ns from "./ns.ts";',
      'const lazy = () => import( "./lazy.ts" );',
      'const text = "not an import from ./nowhere.ts";',
      "const example = 'import { x } from \"./in-a-string.ts\"';",
      ' * import { y } from "./in-a-doc-comment.ts";',
      "export interface Quote {",
      '  /** taken from "./in-an-interface.ts" */',
      "  text: string;",
      "}",
    ].join("\n");
    expect(importSpecifiers(source).sort()).toEqual(["./lazy.ts", "./ns.ts", "./one.ts", "./side-effect.ts"]);
  });
});
