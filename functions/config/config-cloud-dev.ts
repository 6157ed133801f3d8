import { z } from "zod";
import { ConfigError } from "./config.ts";
import { emptyAsUndefined, optionalString } from "./config-env.ts";

/**
 * The settings of `npm run dev:cloud` (containers/cloud-dev), parsed once at its start like the
 * service's own. Everything else it passes on to the functions and workers it starts, whose
 * config.ts parses them.
 */

const int = (min: number, max: number, fallback: number) =>
  z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number({ error: `must be an integer from ${min} to ${max}` })
      .int(`must be an integer from ${min} to ${max}`)
      .min(min, `must be an integer from ${min} to ${max}`)
      .max(max, `must be an integer from ${min} to ${max}`)
      .default(fallback),
  );

const CloudDevSchema = z.object({
  /** First of four consecutive ports (the agent, fetch and search function URLs, the browser load balancer); 0 picks free ones. */
  OSPREY_CLOUD_DEV_PORT: int(0, 65_532, 8790),
  OSPREY_CLOUD_DEV_WORKERS: int(1, 8, 2),
  DATABASE_URL: optionalString,
  OSPREY_PUBLIC_URL: optionalString,
  OSPREY_BROWSER_PUBLIC_URL: optionalString,
  AWS_ACCESS_KEY_ID: optionalString,
  AWS_SECRET_ACCESS_KEY: optionalString,
});

export interface CloudDevSettings {
  basePort: number;
  workers: number;
  /** Unset: a dedicated database on the local Postgres. */
  databaseUrl: string | null;
  publicUrl: string | null;
  /** Where the workers' cdp_url and live_view_url point; unset: the local load balancer. */
  browserPublicUrl: string | null;
  /** The emulator accepts any; real ones pass through. */
  awsAccessKeyId: string;
  awsSecretAccessKey: string;
}

export function parseCloudDevSettings(env: Record<string, string | undefined>): CloudDevSettings {
  const parsed = CloudDevSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`invalid configuration: ${String(issue?.path[0] ?? "environment")} ${issue?.message ?? "is invalid"}`);
  }
  const e = parsed.data;
  return {
    basePort: e.OSPREY_CLOUD_DEV_PORT,
    workers: e.OSPREY_CLOUD_DEV_WORKERS,
    databaseUrl: e.DATABASE_URL ?? null,
    publicUrl: e.OSPREY_PUBLIC_URL ?? null,
    browserPublicUrl: e.OSPREY_BROWSER_PUBLIC_URL ?? null,
    awsAccessKeyId: e.AWS_ACCESS_KEY_ID ?? "test",
    awsSecretAccessKey: e.AWS_SECRET_ACCESS_KEY ?? "test",
  };
}
