/** Scopes of an API key: `api` keys serve REST and CLI callers, `mcp` keys the MCP server. */
export const API_KEY_SCOPES = ["api", "mcp"] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];
