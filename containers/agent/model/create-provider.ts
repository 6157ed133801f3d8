import {
  defaultModelBaseUrl as defaultBaseUrl,
  type ModelConfig,
  missingModelSettings,
} from "../../../functions/config/model-settings.ts";
import type { Logger } from "../../../functions/lib/logger.ts";
import { createAnthropicProvider } from "./anthropic.ts";
import { createOpenAIProvider } from "./openai.ts";
import { type RetryOptions, withRetries } from "./retry.ts";
import type { ModelProvider } from "./types.ts";

export { type ModelConfig, missingModelSettings };

export interface CreateModelProviderOptions extends Omit<RetryOptions, "logger"> {
  logger: Logger;
  fetch?: typeof fetch;
}

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
