import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Code } from "aws-cdk-lib/aws-lambda";

/**
 * One function's code from the edge bundles (`npm run build`, functions/build/build-edge.ts): its
 * `<name>.mjs` and the chunks it imports (statically or with import()), nothing of the others, so
 * each function's package holds only its own surface.
 */
export function functionFiles(functionsDir: string, name: string): string[] {
  const entry = `${name}.mjs`;
  if (!existsSync(path.join(functionsDir, entry))) {
    throw new Error(
      `${path.join(functionsDir, entry)} is missing: run \`npm run build\` before synthesizing (npm run infra:synth does)`,
    );
  }
  const files = new Set<string>();
  const visit = (rel: string) => {
    if (files.has(rel)) return;
    files.add(rel);
    const text = readFileSync(path.join(functionsDir, rel), "utf8");
    for (const m of text.matchAll(/["'`](?:\.\.?\/)*(?:chunks\/)?([A-Za-z0-9_-]+-[A-Z0-9]{8}\.mjs)["'`]/g)) {
      const chunk = `chunks/${m[1]}`;
      if (existsSync(path.join(functionsDir, chunk))) visit(chunk);
    }
  };
  visit(entry);
  return [...files].sort();
}

export function functionCode(functionsDir: string, name: string): Code {
  const keep = new Set(functionFiles(functionsDir, name));
  const all: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(path.join(functionsDir, dir), { withFileTypes: true })) {
      const rel = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory()) walk(rel);
      else all.push(rel);
    }
  };
  walk("");
  return Code.fromAsset(functionsDir, { exclude: all.filter((f) => !keep.has(f)) });
}
