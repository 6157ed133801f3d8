import { z } from "zod";
import { emptyAsUndefined, httpUrl } from "./config-env.ts";

/**
 * The remote renderer's settings (cloud mode): the edge's fetch sends pages that need scripts to
 * a browser container's internal render endpoint (OSPREY_RENDERER_URL) with a shared secret
 * (OSPREY_RENDERER_SECRET, the same value on both sides). Parsed with the rest of the configuration
 * by the entry point that needs them; reads no environment itself.
 */

const RenderEnvSchema = z.object({
  OSPREY_RENDERER_URL: z.preprocess(emptyAsUndefined, httpUrl.optional()),
  OSPREY_RENDERER_SECRET: z.preprocess(
    emptyAsUndefined,
    z.string().min(32, "must be at least 32 characters (e.g. openssl rand -hex 32)").optional(),
  ),
});

export type RemoteRendererConfig = { ok: true; url: string; secret: string } | { ok: false; reason: string };

/**
 * The renderer from the environment. A missing or bad setting is not a start-up failure: only
 * renders need it, and each one fails with `render_unavailable` naming the setting.
 */
export function remoteRendererConfig(env: Record<string, string | undefined>): RemoteRendererConfig {
  const parsed = RenderEnvSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, reason: `${String(issue?.path[0] ?? "renderer setting")} ${issue?.message ?? "is invalid"}` };
  }
  const { OSPREY_RENDERER_URL: url, OSPREY_RENDERER_SECRET: secret } = parsed.data;
  if (!url) return { ok: false, reason: "no render service is configured (OSPREY_RENDERER_URL)" };
  if (!secret) return { ok: false, reason: "OSPREY_RENDERER_SECRET is not set" };
  return { ok: true, url, secret };
}

/** The render endpoint's secret on the container side; null when unset or too short (then it stays off). */
export function renderEndpointSecret(env: Record<string, string | undefined>): string | null {
  const parsed = RenderEnvSchema.shape.OSPREY_RENDERER_SECRET.safeParse(env.OSPREY_RENDERER_SECRET);
  return parsed.success ? (parsed.data ?? null) : null;
}
