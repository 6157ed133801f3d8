export * from "./accounts.ts";
export * from "./api-keys.ts";
export * from "./fetch.ts";
export * from "./rate-limits.ts";
