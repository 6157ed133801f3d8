import { browserSurface } from "../surfaces/browser/browser.app.ts";
import type { EdgeSurfaceBuilder } from "./edge-root.ts";

/**
 * {browser_url} on AWS Lambda: authentication, health and the documents. Sessions themselves need a
 * CDP websocket, which Lambda cannot hold; they are served by the browser containers behind a load
 * balancer (ARCHITECTURE.md), and until they are, every session path answers 404 saying so.
 */
export const buildBrowserSurface: EdgeSurfaceBuilder = () => browserSurface(null);
