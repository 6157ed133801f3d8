import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { type Checks, preflight } from "../../infra/deploy.ts";
import { UNSET_SECRET_VALUE } from "../../infra/stacks/data-stack.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const run = promisify(execFile);
const wanted = { databaseSecret: "osprey/database-url", databaseUrl: undefined, llmSecret: null, llmApiKey: undefined };
const ready: Checks = {
  identity: async () => ({ account: "123456789012", region: "eu-west-1" }),
  bootstrapVersion: async () => 27,
  dockerVersion: () => "27.3.1",
  secretValue: async () => "postgres://u:p@ep-x.eu-west-1.aws.neon.tech/osprey?sslmode=require",
};

describe("infra:deploy prerequisites", () => {
  it("with no AWS credentials at all, stops before anything and says how to provide them", async () => {
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: "/nonexistent",
      AWS_CONFIG_FILE: "/nonexistent/config",
      AWS_SHARED_CREDENTIALS_FILE: "/nonexistent/credentials",
      AWS_EC2_METADATA_DISABLED: "true",
      AWS_REGION: "eu-west-1",
    };
    const err = await run(
      process.execPath,
      ["--experimental-strip-types", "--disable-warning=ExperimentalWarning", path.join(ROOT, "infra/deploy.ts")],
      { env, cwd: ROOT, timeout: 30_000 },
    ).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(err?.code).toBe(1);
    expect(err?.stderr).toMatch(/not deploying/);
    expect(err?.stderr).toMatch(/AWS credentials: none usable .*AWS_PROFILE/);
  });

  it("names an account that is not bootstrapped, a missing Docker and an empty Neon secret, each with its fix", async () => {
    const plan = await preflight(
      { ...ready, bootstrapVersion: async () => null, dockerVersion: () => null, secretValue: async () => UNSET_SECRET_VALUE },
      wanted,
    );
    expect(plan.problems).toHaveLength(3);
    expect(plan.problems[0]).toMatch(/npx cdk bootstrap aws:\/\/123456789012\/eu-west-1/);
    expect(plan.problems[1]).toMatch(/Docker/);
    expect(plan.problems[2]).toMatch(/OSPREY_DATABASE_URL: the secret osprey\/database-url has no value yet/);
  });

  it("takes the Neon URL from OSPREY_DATABASE_URL (put after the data stack), and refuses one that is not postgres://", async () => {
    const url = "postgres://u:p@ep-x.neon.tech/osprey?sslmode=require";
    const plan = await preflight({ ...ready, secretValue: async () => null }, { ...wanted, databaseUrl: url });
    expect(plan).toMatchObject({ problems: [], puts: [{ secret: "osprey/database-url", value: url }] });
    const bad = await preflight({ ...ready, secretValue: async () => null }, { ...wanted, databaseUrl: "mysql://x" });
    expect(bad.problems[0]).toMatch(/not a valid value/);
    expect(bad.problems[0]).not.toContain("mysql://x");
  });

  it("checks the model key when a provider is configured; all present means no problem", async () => {
    expect((await preflight(ready, wanted)).problems).toEqual([]);
    const plan = await preflight(
      { ...ready, secretValue: async (n) => (n.includes("llm") ? null : "postgres://u:p@h/db") },
      { ...wanted, llmSecret: "osprey/llm-api-key" },
    );
    expect(plan.problems[0]).toMatch(/OSPREY_LLM_API_KEY: the secret osprey\/llm-api-key/);
  });

  it("with RDS asks for no database URL, and refuses one given in the environment", async () => {
    const rds = { ...wanted, databaseSecret: null };
    const asked: string[] = [];
    const plan = await preflight(
      {
        ...ready,
        secretValue: async (n) => {
          asked.push(n);
          return null;
        },
      },
      rds,
    );
    expect(plan).toMatchObject({ problems: [], puts: [] });
    expect(asked).toEqual([]);
    const given = await preflight(ready, { ...rds, databaseUrl: "postgres://u:p@h/db" });
    expect(given.problems).toHaveLength(1);
    expect(given.problems[0]).toMatch(/OSPREY_DATABASE_URL: not used with -c database=rds/);
    expect(given.problems[0]).not.toContain("u:p@h");
  });
});
