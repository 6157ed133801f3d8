import type { Config } from "./config.ts";

export type ModelConfig = Config["model"];

export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";
export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";
const DEFAULT_HOSTS = new Set(["api.openai.com", "api.anthropic.com"]);

export const defaultModelBaseUrl = (provider: "openai" | "anthropic") =>
  provider === "openai" ? OPENAI_DEFAULT_BASE_URL : ANTHROPIC_DEFAULT_BASE_URL;

/**
 * The environment variables still to set before a model can be used, in the order to mention
 * them (empty when the configuration is complete). A key is only required for the providers' own
 * endpoints: a local vLLM or Ollama usually runs without one. The edge uses this to answer the
 * automation endpoints with 403 naming exactly what to set; `npm start` prints the same.
 */
export function missingModelSettings(model: ModelConfig): string[] {
  if (!model) return ["OSPREY_LLM_PROVIDER", "OSPREY_LLM_MODEL", "OSPREY_LLM_API_KEY"];
  const missing: string[] = [];
  if (!model.model) missing.push("OSPREY_LLM_MODEL");
  const host = new URL(model.baseUrl ?? defaultModelBaseUrl(model.provider)).hostname;
  if (!model.apiKey && DEFAULT_HOSTS.has(host)) missing.push("OSPREY_LLM_API_KEY");
  return missing;
}
