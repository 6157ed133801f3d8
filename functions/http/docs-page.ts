import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { gzipSync } from "node:zlib";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { Scalar } from "@scalar/hono-api-reference";
import type { AppEnv } from "./app-env.ts";

/** Where the reference's script is served: the version is in the name, so it can be cached for good. */
export const DOCS_ASSETS_PREFIX = "/docs/assets/";

interface Bundle {
  version: string;
  /** The file of the UMD bundle of @scalar/api-reference (its CSS is inside: the script injects it). */
  file: string;
}

/**
 * The installed @scalar/api-reference's standalone bundle, or null where the package is not on disk
 * (the edge functions are bundled without node_modules: there the page falls back to the CDN).
 */
function findBundle(): Bundle | null {
  try {
    const entry = createRequire(import.meta.url).resolve("@scalar/api-reference");
    let root = path.dirname(entry);
    while (!path.basename(root).startsWith("api-reference") && path.dirname(root) !== root) root = path.dirname(root);
    const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { version: string };
    const file = path.join(root, "dist", "browser", "standalone.js");
    return existsSync(file) ? { version: pkg.version, file } : null;
  } catch {
    return null;
  }
}

/**
 * GET /docs, the API reference (Scalar), with its script served from the installed package so the
 * page works without internet: no CDN, and Scalar's default web fonts off (system fonts instead).
 * The script is read and gzipped once, on first use (4.8 MB, ~1 MB gzipped), not at start.
 */
export function mountDocs(app: OpenAPIHono<AppEnv>, opts: { title: string }): void {
  const bundle = findBundle();
  const scriptPath = bundle ? `${DOCS_ASSETS_PREFIX}scalar-api-reference-${bundle.version}.js` : undefined;
  app.get(
    "/docs",
    Scalar({ url: "/openapi.json", pageTitle: opts.title, withDefaultFonts: false, ...(scriptPath ? { cdn: scriptPath } : {}) }),
  );
  if (!bundle || !scriptPath) return;
  let js: Buffer | undefined;
  let gzipped: Buffer | undefined;
  app.get(scriptPath, (c) => {
    js ??= readFileSync(bundle.file);
    c.header("content-type", "text/javascript; charset=utf-8");
    c.header("cache-control", "public, max-age=31536000, immutable");
    c.header("x-content-type-options", "nosniff");
    c.header("vary", "accept-encoding");
    if (/\bgzip\b/.test(c.req.header("accept-encoding") ?? "")) {
      gzipped ??= gzipSync(js);
      c.header("content-encoding", "gzip");
      return c.body(new Uint8Array(gzipped));
    }
    return c.body(new Uint8Array(js));
  });
}
