import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * Stand-in edge bundles for synthesizing offline (`npm run build` is not needed to test the
 * templates): one file per function, and for fetch a chunk that imports another lazily, as PDF.js is.
 */
export function stubBundles(functionsDir: string): void {
  mkdirSync(path.join(functionsDir, "chunks"), { recursive: true });
  for (const name of ["agent", "search", "browser", "scaler", "front-door"])
    writeFileSync(path.join(functionsDir, `${name}.mjs`), "export const handler = async () => ({ statusCode: 200 });\n");
  writeFileSync(path.join(functionsDir, "fetch.mjs"), 'import "./chunks/chunk-AAAABBBB.mjs";\nexport const handler = 1;\n');
  writeFileSync(path.join(functionsDir, "chunks/chunk-AAAABBBB.mjs"), 'export const x = () => import("./pdfjs-CCCCDDDD.mjs");\n');
  writeFileSync(path.join(functionsDir, "chunks/pdfjs-CCCCDDDD.mjs"), "export const pdf = 1;\n");
}
