import { accessSync, constants } from "node:fs";
import type { Config } from "../../functions/config/config.ts";

const CHROMIUM_CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The Chromium the local browser pool would launch: CHROME_PATH, else Debian's. */
export function detectChromium(config: Pick<Config, "chromePath">): { path: string | null; reason: string } {
  if (config.chromePath) {
    return isExecutable(config.chromePath)
      ? { path: config.chromePath, reason: "CHROME_PATH" }
      : { path: null, reason: `CHROME_PATH ${config.chromePath} is not an executable file` };
  }
  const found = CHROMIUM_CANDIDATES.find(isExecutable);
  return found
    ? { path: found, reason: "found" }
    : { path: null, reason: "no Chromium found (install chromium or set CHROME_PATH)" };
}

/** One line per adapter for the start-up banner. */
export function describeAdapters(config: Config, databaseDescription: string): [string, string][] {
  const chromium = detectChromium(config);
  const model = config.model
    ? `${config.model.provider}${config.model.model ? ` ${config.model.model}` : ""}${config.model.baseUrl ? ` at ${config.model.baseUrl}` : ""}`
    : "none configured (set OSPREY_LLM_PROVIDER to run the automation agent)";
  return [
    ["database", databaseDescription],
    [
      "artifacts",
      config.blobStore.kind === "files"
        ? `files under ${config.blobStore.dir}`
        : `s3://${config.blobStore.bucket}/${config.blobStore.prefix}${config.blobStore.endpoint ? ` at ${config.blobStore.endpoint}` : ""}`,
    ],
    ["queue", config.queue.kind === "sqs" ? `sqs ${config.queue.queueUrl}` : "postgres table in the same database"],
    [
      "browser",
      chromium.path ? `chromium at ${chromium.path}` : `none: ${chromium.reason}; pages that need scripts cannot be rendered`,
    ],
    ["model", model],
    ["search", searchLine(config)],
  ];
}

function searchLine(config: Config): string {
  if (!config.search.enabled) return "off (OSPREY_SEARCH=off): /search answers 404";
  const upstreams = [
    config.search.searxngUrl ? `searxng ${config.search.searxngUrl}` : null,
    config.search.braveApiKey ? "brave" : null,
    config.search.openalexUrl || config.search.openalexApiKey ? "openalex" : null,
  ].filter((x) => x !== null);
  return `local index${upstreams.length > 0 ? ` + ${upstreams.join(", ")}` : " only (set OSPREY_SEARXNG_URL, OSPREY_BRAVE_API_KEY or OSPREY_OPENALEX_URL for web-scale results)"}`;
}
