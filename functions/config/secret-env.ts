/**
 * Secrets for the Lambda functions (infra/): the deployment names, in OSPREY_SECRET_ENV, which
 * variables to take from which Secrets Manager secret (`DATABASE_URL=arn:…,OSPREY_VAULT_KEY=arn:…`),
 * and the function reads them on its first request, under a role allowed exactly those secrets. The
 * values then never sit in the function's configuration, and a rotated secret is read by the next
 * cold start. A variable already set is left as it is (a local run sets values directly).
 * The containers need none of this: ECS injects their secrets at task start.
 *
 * DATABASE_URL's secret may hold a connection URL (Neon, filled by the operator) or the JSON that
 * RDS and Secrets Manager keep for a database's generated credentials (`-c database=rds`):
 * {"username","password","host","port","dbname","engine"}. The JSON is turned into a URL here, on
 * every cold start, so the URL is never a copy that a rotated password leaves behind. The
 * containers get the same JSON from ECS and parseConfig turns it into a URL the same way.
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
    const value = values[i];
    out[w.name] =
      w.name === "DATABASE_URL" && value !== undefined ? databaseUrlFromSecret(value, `its secret (${w.secretId})`) : value;
  });
  return out;
}

/** A secret value that is a JSON object rather than a URL (RDS credentials). */
export const isJsonSecret = (value: string): boolean => value.trimStart().startsWith("{");

/**
 * DATABASE_URL from a secret's value: a URL passes unchanged; RDS's JSON becomes
 * postgres://user:password@host:port/dbname?sslmode=verify-full (each part percent-encoded).
 * `verify-full` checks the server's certificate chain and host name: the RDS CA is trusted through
 * NODE_EXTRA_CA_CERTS (infra/environment.ts). A self-made secret may set "sslmode" itself (RDS never
 * writes one). A malformed one throws naming `where` and the missing field, never a value: a JSON
 * parser's own message quotes the text around the fault, which may be the password.
 */
export function databaseUrlFromSecret(value: string, where: string): string {
  if (!isJsonSecret(value)) return value;
  const bad = (why: string) =>
    new Error(
      `DATABASE_URL from ${where}: ${why} (expected a postgres URL, or RDS's JSON {"username","password","host","port","dbname"})`,
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw bad("the value starts like JSON but is not valid JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw bad("the JSON is not an object");
  const o = parsed as Record<string, unknown>;
  const text = (k: string) => (typeof o[k] === "string" && (o[k] as string).trim() !== "" ? (o[k] as string) : null);
  if (o.engine !== undefined && !/^postgres/.test(String(o.engine))) throw bad(`engine is not postgres`);
  const missing = ["username", "password", "host"].filter((k) => text(k) === null);
  if (missing.length > 0) throw bad(`${missing.join(", ")} missing or empty`);
  const port = o.port === undefined ? 5432 : Number(o.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw bad("port is not a port number");
  const host = text("host") as string;
  if (!/^[A-Za-z0-9.-]+$/.test(host)) throw bad("host is not a host name");
  const sslmode = text("sslmode") ?? "verify-full";
  if (!["disable", "require", "verify-ca", "verify-full"].includes(sslmode))
    throw bad("sslmode is not one of disable, require, verify-ca, verify-full");
  const enc = encodeURIComponent;
  return `postgres://${enc(text("username") as string)}:${enc(text("password") as string)}@${host}:${port}/${enc(text("dbname") ?? "postgres")}?sslmode=${sslmode}`;
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
