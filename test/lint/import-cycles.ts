// Import-cycle check, run by `npm run lint` after Biome.
//
// Builds the graph of relative imports between the .ts files under functions/, containers/, schema/
// and test/, and fails when it has a cycle: two files that import each other (directly or through
// others) are one piece of meaning cut in two, or a type or constant living in the wrong room
// (STYLE.md, habit 10).
//
// Every form of import counts: `import`, `import type`, `export … from` and `import("…")`. A
// type-only cycle is erased at run time, but the coupling it records is the same, and it is the one
// a size-driven split leaves behind; a dynamic import still makes the importer depend on the file.
//
// It lives under test/ because it checks the code and ships with none of it (functions/ is bundled
// into the edge functions, containers/ into the image). Packages and node: builtins are not followed.
//
// The rules of direction are Biome's (noRestrictedImports overrides in biome.json, which takes no
// comments): schema/ imports nothing from functions/ or containers/; functions/ never imports
// containers/; only the surfaces and the composition roots (functions/app.ts, entry/, edge/,
// openapi/) import functions/surfaces/, and containers/ never does; functions/extract/ imports
// neither search/ nor fetch/. An override's options replace those of an earlier override matching
// the same file, so each narrower folder there repeats the groups of the wider ones.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

export type ImportGraph = Map<string, string[]>;

const SCANNED_FOLDERS = ["functions", "containers", "schema", "test"];

// Static imports and re-exports are read only where a statement starts a line, and only with the
// characters an import clause can hold before `from` (names, braces, commas, `*`, `type`, `as`), so
// an import written in a comment, a doc example or a string is not an edge. Dynamic imports are read
// anywhere; a comment that spells out `import("./x.ts")` would count (none does).
const SPECIFIERS = [
  /^[ \t]*(?:import|export)\b[\w\s{},*$]*?\bfrom\s*["']([^"']+)["']/gm, // import x from "…", export { x } from "…"
  /^[ \t]*import\s*["']([^"']+)["']/gm, // import "…" (side effects only)
  /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g, // import("…")
];

export function importSpecifiers(source: string): string[] {
  const found = new Set<string>();
  for (const pattern of SPECIFIERS) for (const match of source.matchAll(pattern)) if (match[1]) found.add(match[1]);
  return [...found];
}

function listTsFiles(folder: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(folder);
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const entry of entries) {
    if (entry === "node_modules") continue;
    const path = join(folder, entry);
    if (statSync(path).isDirectory()) files.push(...listTsFiles(path));
    else if (entry.endsWith(".ts") && !entry.endsWith(".d.ts")) files.push(path);
  }
  return files;
}

/** The graph of relative imports between the .ts files under `folders` of `root`, keyed by path relative to `root`. */
export function buildImportGraph(root: string, folders: string[] = SCANNED_FOLDERS): ImportGraph {
  const files = folders.flatMap((folder) => listTsFiles(resolve(root, folder)));
  const known = new Set(files);
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const targets = new Set<string>();
    for (const specifier of importSpecifiers(readFileSync(file, "utf8"))) {
      if (!specifier.startsWith(".")) continue;
      const base = resolve(dirname(file), specifier);
      const target = [base, `${base}.ts`, join(base, "index.ts")].find((candidate) => known.has(candidate));
      if (target) targets.add(relative(root, target));
    }
    graph.set(relative(root, file), [...targets].sort());
  }
  return graph;
}

/**
 * One cycle per strongly connected component that has one (Tarjan's algorithm, iterative so a deep
 * graph cannot overflow the stack), each as the list of files in import order, starting from the
 * component's first file by name. A component of many files has many cycles; one shows where it is,
 * and the component's size says how tangled it is.
 */
export function findCycles(graph: ImportGraph): { files: string[]; cycle: string[] }[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;

  for (const start of [...graph.keys()].sort()) {
    if (index.has(start)) continue;
    const work: { node: string; next: number }[] = [{ node: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { node: string; next: number };
      const targets = graph.get(frame.node) ?? [];
      if (frame.next < targets.length) {
        const target = targets[frame.next++] as string;
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, next: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node) as number, index.get(target) as number));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node) as number, low.get(frame.node) as number));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string | undefined;
        do {
          member = stack.pop() as string;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfLoop = component.length === 1 && (graph.get(frame.node) ?? []).includes(frame.node);
        if (component.length > 1 || selfLoop) components.push(component.sort());
      }
    }
  }

  return components
    .map((files) => ({ files, cycle: cycleWithin(graph, new Set(files), files[0] as string) }))
    .sort((a, b) => (a.files[0] as string).localeCompare(b.files[0] as string));
}

// Shortest path from `start` back to itself inside one component (breadth-first).
function cycleWithin(graph: ImportGraph, members: Set<string>, start: string): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift() as string;
    for (const target of graph.get(node) ?? []) {
      if (!members.has(target)) continue;
      if (target === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0] as string) as string);
        return [...path, start];
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, node);
        queue.push(target);
      }
    }
  }
  return [start];
}

if (import.meta.main) {
  const root = resolve(dirname(new URL(import.meta.url).pathname), "../..");
  const cycles = findCycles(buildImportGraph(root));
  for (const { files, cycle } of cycles) {
    process.stderr.write(`import cycle among ${files.length} files: ${cycle.join(" -> ")}\n`);
  }
  if (cycles.length > 0) {
    process.stderr.write(`${cycles.length} import cycle(s): merge files that belong together, or move the shared piece down.\n`);
    process.exit(1);
  }
}
