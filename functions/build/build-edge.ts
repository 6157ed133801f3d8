import path from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Metafile, type Plugin } from "esbuild";

/**
 * `npm run build`: one ESM bundle per edge surface, dist/functions/<surface>.mjs, each exporting
 * the Lambda `handler` (functions/entry/<surface>.lambda.ts).
 *
 * `@aws-sdk/*` stays external: the Lambda Node.js runtime ships the AWS SDK v3, and bundling the
 * SQS and S3 clients would add about a megabyte to every bundle for code the runtime already has.
 * The calls used (SendMessage, Put/Get/DeleteObject) are stable across v3 minor versions.
 *
 * PGlite and puppeteer must never be in an edge bundle. The database module loads PGlite with
 * import() on the one path that needs it; that dynamic import is left out of the bundle (the edge
 * never opens PGlite). Any other way in, a static import from anywhere, makes the build fail, as
 * does anything under containers/.
 *
 * `pg` (node-postgres over TCP) is bundled, for deployments whose database is RDS
 * (OSPREY_DB_DRIVER=pg, infra `-c database=rds`), but only as a chunk loaded with import() when
 * that driver is chosen: a Neon deployment's cold start never reads it. A static import of `pg`
 * that would put it in what every cold start loads fails the build too. Its optional native
 * binding (pg-native) and its Cloudflare socket (pg-cloudflare) stay out: neither path is taken on
 * Node.
 */

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const SURFACES = ["agent", "fetch", "search", "browser"] as const;
export type EdgeSurface = (typeof SURFACES)[number];
/**
 * Every Lambda function infra/ deploys: the surfaces, the browser containers' scaler
 * (functions/scaler), and the browser sessions' front door (functions/edge/front-door.ts).
 */
export const FUNCTIONS = [...SURFACES, "scaler", "front-door"] as const;
export type EdgeFunction = (typeof FUNCTIONS)[number];
export const OUT_DIR = path.join(ROOT, "dist/functions");

/** Packages and modules that belong to the serverful side. */
const FORBIDDEN =
  /(^|\/)node_modules\/(@electric-sql\/pglite|pg-native|pg-cloudflare|puppeteer|puppeteer-core|chromium-bidi)\/|^containers\//;
/** The TCP driver: allowed in a bundle, but only in chunks loaded with import(). */
const LAZY_DRIVER = /(^|\/)node_modules\/(pg|pg-pool|pg-protocol|pg-connection-string|drizzle-orm\/node-postgres)\//;
/** What the database module may import() and the edge never loads. */
const LAZY_ONLY = /^(@electric-sql\/pglite|drizzle-orm\/pglite(\/.*)?|\.\/pglite-database\.ts)$/;

/** Leaves the database module's dynamic imports of PGlite out; a static import still bundles it (and fails the check). */
const lazyDrivers: Plugin = {
  name: "osprey-lazy-drivers",
  setup(b) {
    b.onResolve({ filter: LAZY_ONLY }, (args) => {
      if (args.kind !== "dynamic-import" || !args.importer.endsWith(path.join("functions", "db", "open-database.ts"))) return;
      return { path: args.path, external: true };
    });
  },
};

export interface BundleReport {
  surface: string;
  file: string;
  /** The entry file and the chunks it imports statically: what a cold start loads. */
  bytes: number;
  /** Chunks it loads with import() on some requests only (PDF.js for fetch). */
  lazyBytes: number;
  /** Inputs that must not be there (empty when the bundle is clean). */
  forbidden: string[];
}

/** Bundles one function (a surface or the scaler); the caller decides what a forbidden input means (the build fails). */
export function bundleSurface(surface: EdgeFunction, outDir = OUT_DIR): Promise<BundleReport> {
  return bundleEntry(surface, path.join(ROOT, `functions/entry/${surface}.lambda.ts`), outDir);
}

/** Bundles one entry file as `<name>.mjs` under `outDir`, with the edge's rules (tests check them on other entries). */
export async function bundleEntry(name: string, entry: string, outDir = OUT_DIR): Promise<BundleReport> {
  const file = path.join(outDir, `${name}.mjs`);
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: { [name]: entry },
    outdir: outDir,
    outExtension: { ".js": ".mjs" },
    // Code loaded with import() only on some requests (PDF.js) goes to its own file, read when first needed.
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node22",
    minify: true,
    sourcemap: false,
    legalComments: "none",
    metafile: true,
    logLevel: "warning",
    external: ["@aws-sdk/*", "bufferutil", "utf-8-validate", "pg-native", "pg-cloudflare"],
    plugins: [lazyDrivers],
    // CommonJS dependencies (ws, pg-protocol's friends) call require() for Node's built-ins.
    banner: { js: 'import{createRequire as __osprey_cr}from"node:module";const require=__osprey_cr(import.meta.url);' },
  });
  const metafile = result.metafile as Metafile;
  const forbidden = Object.keys(metafile.inputs).filter((input) => FORBIDDEN.test(input));
  // What a cold start loads: the entry and the chunks it imports statically; the rest waits for import().
  const eager = new Set<string>();
  const visit = (out: string) => {
    if (eager.has(out)) return;
    eager.add(out);
    for (const i of metafile.outputs[out]?.imports ?? []) if (!i.external && i.kind === "import-statement") visit(i.path);
  };
  visit(path.relative(ROOT, file));
  for (const out of eager)
    for (const input of Object.keys(metafile.outputs[out]?.inputs ?? {}))
      if (LAZY_DRIVER.test(input)) forbidden.push(`${input} (loaded at every cold start: import pg with import() only)`);
  let bytes = 0;
  let lazyBytes = 0;
  for (const [out, o] of Object.entries(metafile.outputs)) {
    if (eager.has(out)) bytes += o.bytes;
    else lazyBytes += o.bytes;
  }
  return { surface: name, file, bytes, lazyBytes, forbidden };
}

async function main(): Promise<void> {
  let failed = false;
  for (const surface of FUNCTIONS) {
    const report = await bundleSurface(surface);
    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(2)} MB`;
    const lazy = report.lazyBytes > 0 ? `  (+ ${mb(report.lazyBytes)} loaded on first use)` : "";
    process.stdout.write(`${path.relative(ROOT, report.file).padEnd(30)} ${mb(report.bytes).padStart(8)}${lazy}\n`);
    if (report.forbidden.length > 0) {
      failed = true;
      process.stderr.write(`  ${surface}: carries what the edge must not: ${report.forbidden.slice(0, 5).join(", ")}\n`);
    }
  }
  if (failed) process.exit(1);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
