import type { Config } from "../../../functions/config/config.ts";
import type { Logger } from "../../../functions/lib/logger.ts";
import { ANTHROPIC_DEFAULT_BASE_URL, createAnthropicProvider } from "./anthropic.ts";
import { createOpenAIProvider, OPENAI_DEFAULT_BASE_URL } from "./openai.ts";
import { type RetryOptions, withRetries } from "./retry.ts";
import type { ModelProvider } from "./types.ts";

export type ModelConfig = Config["model"];

export interface CreateModelProviderOptions extends Omit<RetryOptions, "logger"> {
  logger: Logger;
  fetch?: typeof fetch;
}

const DEFAULT_HOSTS = new Set(["api.openai.com", "api.anthropic.com"]);

/**
 * The environment variables still to set before a model can be used, in the order to mention
 * them (empty when the configuration is complete). A key is only required for the providers' own
 * endpoints: a local vLLM or Ollama usually runs without one.
 */
export function missingModelSettings(model: ModelConfig): string[] {
  if (!model) return ["OSPREY_LLM_PROVIDER", "OSPREY_LLM_MODEL", "OSPREY_LLM_API_KEY"];
  const missing: string[] = [];
  if (!model.model) missing.push("OSPREY_LLM_MODEL");
  const host = new URL(model.baseUrl ?? defaultBaseUrl(model.provider)).hostname;
  if (!model.apiKey && DEFAULT_HOSTS.has(host)) missing.push("OSPREY_LLM_API_KEY");
  return missing;
}

const defaultBaseUrl = (provider: "openai" | "anthropic") =>
  provider === "openai" ? OPENAI_DEFAULT_BASE_URL : ANTHROPIC_DEFAULT_BASE_URL;

/**
 * The configured model provider with timeouts and retries, or null when no usable model is
 * configured (see missingModelSettings for what to tell the operator).
 */
export function createModelProvider(model: ModelConfig, options: CreateModelProviderOptions): ModelProvider | null {
  if (!model?.model || missingModelSettings(model).length > 0) return null;
  const { fetch: doFetch, ...retry } = options;
  const wire = {
    baseUrl: model.baseUrl ?? defaultBaseUrl(model.provider),
    model: model.model,
    apiKey: model.apiKey,
    fetch: doFetch,
  };
  const inner = model.provider === "openai" ? createOpenAIProvider(wire) : createAnthropicProvider(wire);
  return withRetries(inner, retry);
}
