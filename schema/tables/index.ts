export * from "./accounts.ts";
export * from "./api-keys.ts";
export * from "./browser-sessions.ts";
export * from "./fetch.ts";
export * from "./rate-limits.ts";
export * from "./runs.ts";
export * from "./search.ts";
export * from "./webhooks.ts";
