import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from "@aws-sdk/client-secrets-manager";
import { GetParameterCommand, SSMClient } from "@aws-sdk/client-ssm";
import { GetCallerIdentityCommand, STSClient } from "@aws-sdk/client-sts";
import { processEnvironment } from "../functions/config/config.ts";
import { UNSET_SECRET_VALUE } from "./stacks/data-stack.ts";

/**
 * `npm run infra:deploy [-- <cdk deploy options>]`: checks what a deploy needs before CloudFormation
 * is asked for anything, with one line per problem saying what to do:
 * - AWS credentials and a region (the SDK's default chain: env, profile, SSO);
 * - the account bootstrapped for CDK (`cdk bootstrap` writes /cdk-bootstrap/hnb659fds/version);
 * - Docker, which builds the browser container image at deploy time;
 * - the Neon connection string: in the secret already, or in OSPREY_DATABASE_URL (then put into the
 *   secret once the data stack exists); likewise the model key (OSPREY_LLM_API_KEY) when a provider
 *   is configured. With `-c database=rds` there is no URL to give: RDS generates the credentials
 *   into their secret, and an OSPREY_DATABASE_URL in the environment is refused rather than ignored.
 * Then it builds the edge bundles and runs `cdk deploy --all`.
 */

export interface Checks {
  identity(): Promise<{ account: string; region: string }>;
  bootstrapVersion(): Promise<number | null>;
  dockerVersion(): string | null;
  /** The secret's value; null when the secret does not exist yet. */
  secretValue(name: string): Promise<string | null>;
}

export interface Wanted {
  /** The Neon URL's secret; null with RDS (its secret is generated). */
  databaseSecret: string | null;
  databaseUrl: string | undefined;
  llmSecret: string | null;
  llmApiKey: string | undefined;
}

export interface Plan {
  problems: string[];
  /** Secret values to put once the data stack exists (name → value). */
  puts: Array<{ secret: string; value: string }>;
  account?: string;
  region?: string;
}

const PG_URL = /^postgres(ql)?:\/\/[^\s]+$/;

export async function preflight(checks: Checks, wanted: Wanted): Promise<Plan> {
  const plan: Plan = { problems: [], puts: [] };
  try {
    const id = await checks.identity();
    plan.account = id.account;
    plan.region = id.region;
  } catch (err) {
    plan.problems.push(
      `AWS credentials: none usable (${(err as Error).name}: ${(err as Error).message}). Set AWS_PROFILE (aws configure / aws sso login) or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, and AWS_REGION.`,
    );
    return plan;
  }
  const bootstrap = await checks.bootstrapVersion().catch(() => null);
  if (bootstrap === null)
    plan.problems.push(
      `CDK bootstrap: account ${plan.account} in ${plan.region} is not bootstrapped. Run: npx cdk bootstrap aws://${plan.account}/${plan.region}`,
    );
  else if (bootstrap < 6) plan.problems.push(`CDK bootstrap: version ${bootstrap} is too old; run npx cdk bootstrap again`);
  if (checks.dockerVersion() === null)
    plan.problems.push(
      "Docker: not found or not running. The browser container image is built at deploy time (containers/Dockerfile).",
    );
  const operatorSecret = async (secret: string, given: string | undefined, env: string, valid: (v: string) => boolean) => {
    const current = await checks.secretValue(secret).catch(() => null);
    if (current !== null && current !== UNSET_SECRET_VALUE && valid(current)) return;
    if (given && valid(given)) plan.puts.push({ secret, value: given });
    else if (given) plan.problems.push(`${env}: not a valid value for the secret ${secret}`);
    else
      plan.problems.push(
        `${env}: the secret ${secret} has no value yet. Run again with ${env}=… in the environment (it is put into the secret, never into a template), or after the first deploy: aws secretsmanager put-secret-value --secret-id ${secret} --secret-string '…'`,
      );
  };
  if (wanted.databaseSecret !== null)
    await operatorSecret(wanted.databaseSecret, wanted.databaseUrl, "OSPREY_DATABASE_URL", (v) => PG_URL.test(v));
  else if (wanted.databaseUrl)
    plan.problems.push(
      "OSPREY_DATABASE_URL: not used with -c database=rds (RDS generates the database's credentials into their secret); unset it, or deploy without database=rds to use that URL",
    );
  if (wanted.llmSecret) await operatorSecret(wanted.llmSecret, wanted.llmApiKey, "OSPREY_LLM_API_KEY", (v) => v.trim() !== "");
  return plan;
}

function awsChecks(): Checks & { put(name: string, value: string): Promise<void> } {
  const sts = new STSClient({});
  const ssm = new SSMClient({});
  const secrets = new SecretsManagerClient({});
  return {
    async identity() {
      const out = await sts.send(new GetCallerIdentityCommand({}));
      const region = await sts.config.region();
      if (!region) throw new Error("no region: set AWS_REGION");
      return { account: out.Account ?? "", region };
    },
    async bootstrapVersion() {
      const out = await ssm.send(new GetParameterCommand({ Name: "/cdk-bootstrap/hnb659fds/version" }));
      return Number(out.Parameter?.Value ?? Number.NaN);
    },
    dockerVersion() {
      const r = spawnSync("docker", ["version", "--format", "{{.Server.Version}}"], { encoding: "utf8", timeout: 15_000 });
      return r.status === 0 ? r.stdout.trim() : null;
    },
    async secretValue(name) {
      try {
        return (await secrets.send(new GetSecretValueCommand({ SecretId: name }))).SecretString ?? null;
      } catch (err) {
        if (err instanceof ResourceNotFoundException) return null;
        throw err;
      }
    },
    async put(name, value) {
      await secrets.send(new PutSecretValueCommand({ SecretId: name, SecretString: value }));
    },
  };
}

/** `-c key=value` pairs from the arguments, for the secret names the stacks will use. */
function contextOf(args: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? "";
    const kv = a === "-c" || a === "--context" ? args[++i] : a.startsWith("--context=") ? a.slice(10) : undefined;
    const eq = kv?.indexOf("=") ?? -1;
    if (kv && eq > 0) out[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  return out;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  // The environment, read once (config.ts's accessor): the secrets it may give, and the commands' own.
  const env = processEnvironment();
  const ctx = contextOf(args);
  const name = ctx.name ?? "osprey";
  const aws = awsChecks();
  const plan = await preflight(aws, {
    databaseSecret: ctx.database === "rds" ? null : (ctx.neonSecretName ?? `${name}/database-url`),
    databaseUrl: env.OSPREY_DATABASE_URL,
    llmSecret: ctx.llmProvider ? (ctx.llmApiKeySecret ?? `${name}/llm-api-key`) : null,
    llmApiKey: env.OSPREY_LLM_API_KEY,
  });
  // A secret value given in the environment can be put only once the data stack has made the secret.
  const blocking = plan.problems;
  if (blocking.length > 0) {
    process.stderr.write(`infra:deploy: not deploying:\n${blocking.map((p) => `  - ${p}`).join("\n")}\n`);
    process.exit(1);
  }
  const root = fileURLToPath(new URL("../", import.meta.url));
  const run = (cmd: string, cmdArgs: string[], cwd: string) => {
    process.stdout.write(`\n$ ${cmd} ${cmdArgs.join(" ")}\n`);
    const r = spawnSync(cmd, cmdArgs, { cwd, stdio: "inherit", env: { ...env } });
    if (r.status !== 0) process.exit(r.status ?? 1);
  };
  const cdk = path.join(root, "node_modules/.bin/cdk");
  run("npm", ["run", "-s", "build"], root);
  if (plan.puts.length > 0) {
    run(cdk, ["deploy", `${name}-data`, "--require-approval", "never", ...args], path.join(root, "infra"));
    for (const p of plan.puts) {
      await aws.put(p.secret, p.value);
      process.stdout.write(`put the value of ${p.secret}\n`);
    }
  }
  run(cdk, ["deploy", "--all", ...args], path.join(root, "infra"));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err: unknown) => {
    process.stderr.write(`infra:deploy: ${(err as Error).message}\n`);
    process.exit(1);
  });
}
