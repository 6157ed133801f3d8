/**
 * Secrets for the Lambda functions (infra/): the deployment names, in OSPREY_SECRET_ENV, which
 * variables to take from which Secrets Manager secret (`DATABASE_URL=arn:…,OSPREY_VAULT_KEY=arn:…`),
 * and the function reads them on its first request, under a role allowed exactly those secrets. The
 * values then never sit in the function's configuration, and a rotated secret is read by the next
 * cold start. A variable already set is left as it is (a local run sets values directly).
 * The containers need none of this: ECS injects their secrets at task start.
 */

export type SecretReader = (secretId: string) => Promise<string>;

const NAME = /^[A-Z][A-Z0-9_]*$/;
const ARN = /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+$/;

/** `NAME=arn,…` → pairs; a malformed entry throws naming the entry (an ARN is not a secret). */
export function parseSecretEnv(value: string | undefined): Array<{ name: string; secretId: string }> {
  const out: Array<{ name: string; secretId: string }> = [];
  for (const raw of (value ?? "").split(",")) {
    const item = raw.trim();
    if (item === "") continue;
    const eq = item.indexOf("=");
    const name = item.slice(0, eq).trim();
    const secretId = item.slice(eq + 1).trim();
    if (eq <= 0 || !NAME.test(name) || !ARN.test(secretId)) {
      throw new Error(`OSPREY_SECRET_ENV has a bad entry "${item}" (expected NAME=arn:aws:secretsmanager:…)`);
    }
    out.push({ name, secretId });
  }
  return out;
}

/** The environment with each OSPREY_SECRET_ENV variable filled from its secret (read in parallel). */
export async function resolveSecretEnv(
  env: Record<string, string | undefined>,
  read?: SecretReader,
): Promise<Record<string, string | undefined>> {
  const wanted = parseSecretEnv(env.OSPREY_SECRET_ENV).filter((w) => !env[w.name]);
  if (wanted.length === 0) return env;
  const reader = read ?? (await secretsManagerReader(env.AWS_REGION));
  const values = await Promise.all(
    wanted.map(async (w) => {
      try {
        return await reader(w.secretId);
      } catch (err) {
        throw new Error(`cannot read ${w.name} from its secret (${w.secretId}): ${(err as Error).name ?? "error"}`, {
          cause: err,
        });
      }
    }),
  );
  const out = { ...env };
  wanted.forEach((w, i) => {
    out[w.name] = values[i];
  });
  return out;
}

/** GetSecretValue through the SDK the Lambda runtime ships (loaded only when a secret is named). */
async function secretsManagerReader(region: string | undefined): Promise<SecretReader> {
  const { SecretsManagerClient, GetSecretValueCommand } = await import("@aws-sdk/client-secrets-manager");
  const client = new SecretsManagerClient(region ? { region } : {});
  return async (secretId) => {
    const out = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    if (typeof out.SecretString !== "string") throw new Error("the secret has no string value");
    return out.SecretString;
  };
}
