import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { App, type Stack } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APP_CONTEXT, defaultProps, defaultRds, type OspreyDeployProps } from "../../infra/config.ts";
import { IMAGE_RDS_CA_BUNDLE, LAMBDA_CA_BUNDLE } from "../../infra/environment.ts";
import { buildOsprey } from "../../infra/osprey.ts";
import { MIGRATE_COMMAND } from "../../infra/stacks/containers-stack.ts";
import { stubBundles } from "./stub-bundles.ts";

/**
 * The RDS variant (`-c database=rds`), synthesized offline and read back: the instance (encrypted,
 * private, TLS forced, backups, deletion protection and a final snapshot), a security group that
 * admits exactly the functions' and the containers' groups on 5432, every function in the VPC's
 * private subnets behind a NAT gateway (and none in a VPC with Neon), pg and the RDS CA bundle in
 * their environments, each one granted only its own secrets, the migrate task, and the resource list.
 */

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
let dir: string;
type Built = ReturnType<typeof buildOsprey>;
type StackName = keyof Built;
let rds: Record<StackName, Template>;
let neon: Record<StackName, Template>;
type Resource = { Type: string; Properties?: Record<string, unknown> };

const synth = (database: OspreyDeployProps["database"], out: string): Record<StackName, Template> => {
  const app = new App({ outdir: path.join(dir, out), context: APP_CONTEXT });
  const stacks = buildOsprey(app, {
    ...defaultProps,
    database,
    model: { provider: "openai", model: "gpt-4.1-mini", apiKeySecretName: "osprey/llm-api-key" },
    paths: { functionsDir: path.join(dir, "functions"), repoRoot: ROOT },
  });
  const templates = Object.fromEntries(Object.entries(stacks).map(([k, s]) => [k, Template.fromStack(s as Stack)]));
  app.synth();
  return templates as Record<StackName, Template>;
};

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "osprey-infra-rds-"));
  stubBundles(path.join(dir, "functions"));
  rds = synth(defaultRds("osprey"), "cdk.out.rds");
  neon = synth(defaultProps.database, "cdk.out.neon");
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const resources = (set: Record<StackName, Template>, name: StackName, type?: string): Array<[string, Resource]> =>
  Object.entries(set[name].toJSON().Resources as Record<string, Resource>).filter(([, r]) => !type || r.Type === type);
const functionsOf = (set: Record<StackName, Template>) => [
  ...resources(set, "edge", "AWS::Lambda::Function"),
  ...resources(set, "containers", "AWS::Lambda::Function"),
];
/** The logical id a value refers to (Ref, Fn::GetAtt or an imported output's name). */
const refersTo = (v: unknown): string => JSON.stringify(v);
/** A Lambda function's environment variables. */
const envOf = (fn: Resource): Record<string, unknown> =>
  (fn.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
/** The worker container's definition in a containers template. */
const workerOf = (set: Record<StackName, Template>): Record<string, unknown> => {
  const td = resources(set, "containers", "AWS::ECS::TaskDefinition")[0]?.[1];
  return ((td?.Properties?.ContainerDefinitions as Array<Record<string, unknown>> | undefined) ?? [])[0] ?? {};
};

describe("RDS: the instance", () => {
  it("Postgres 16+, Graviton, gp3, encrypted, not public, backups kept 7 days, deletion protection, a final snapshot", () => {
    const data = rds.data;
    data.hasResourceProperties("AWS::RDS::DBInstance", {
      Engine: "postgres",
      EngineVersion: Match.stringLikeRegexp("^1[6-9]"),
      DBInstanceClass: "db.t4g.micro",
      StorageType: "gp3",
      AllocatedStorage: "20",
      MaxAllocatedStorage: 100,
      StorageEncrypted: true,
      PubliclyAccessible: false,
      MultiAZ: false,
      BackupRetentionPeriod: 7,
      DeletionProtection: true,
      DBName: "osprey",
      CACertificateIdentifier: "rds-ca-rsa2048-g1",
    });
    const [[, db] = ["", {} as Resource]] = resources(rds, "data", "AWS::RDS::DBInstance");
    expect((db as unknown as { DeletionPolicy: string }).DeletionPolicy).toBe("Snapshot");
    expect((db as unknown as { UpdateReplacePolicy: string }).UpdateReplacePolicy).toBe("Snapshot");
    data.hasResourceProperties("AWS::RDS::DBParameterGroup", { Parameters: { "rds.force_ssl": "1" } });
  });

  it("sits in the isolated subnets (no route out), with generated credentials in Secrets Manager, kept on deletion", () => {
    const group = resources(rds, "data", "AWS::RDS::DBSubnetGroup")[0]?.[1];
    const subnetRefs = JSON.stringify(group?.Properties?.SubnetIds);
    expect(subnetRefs).toMatch(/databaseSubnet1/);
    expect(subnetRefs).toMatch(/databaseSubnet2/);
    expect(subnetRefs).not.toMatch(/publicSubnet|functionsSubnet/);
    // Isolated: no route to a gateway in their route tables.
    const routes = resources(rds, "network", "AWS::EC2::Route").map(([id]) => id);
    expect(routes.some((id) => id.startsWith("Vpcdatabase"))).toBe(false);
    expect(routes.filter((id) => id.startsWith("Vpcfunctions"))).toHaveLength(2);
    const [[secretId, secret] = ["", {} as Resource]] = resources(rds, "data", "AWS::SecretsManager::Secret");
    expect(secret.Properties).toMatchObject({
      Name: "osprey/database",
      GenerateSecretString: expect.objectContaining({ GenerateStringKey: "password" }),
    });
    expect((secret as unknown as { DeletionPolicy: string }).DeletionPolicy).toBe("Retain");
    expect(resources(rds, "data", "AWS::SecretsManager::SecretTargetAttachment")).toHaveLength(1);
    expect(secretId).not.toBe("");
    // No Neon URL secret to fill.
    expect(JSON.stringify(rds.data.toJSON())).not.toContain("database-url");
  });

  it("admits Postgres from the functions' and the containers' security groups only, and sends nothing out", () => {
    const [[dbSgId, dbSg] = ["", {} as Resource]] = resources(rds, "data", "AWS::EC2::SecurityGroup");
    expect(dbSg.Properties?.SecurityGroupIngress ?? []).toEqual([]);
    expect(JSON.stringify(dbSg.Properties?.SecurityGroupEgress)).toContain("255.255.255.255/32"); // CDK's "no egress" rule
    const ingress = [
      ...resources(rds, "data", "AWS::EC2::SecurityGroupIngress"),
      ...resources(rds, "containers", "AWS::EC2::SecurityGroupIngress"),
    ].filter(
      ([, r]) =>
        refersTo(r.Properties?.GroupId).includes(dbSgId) || refersTo(r.Properties?.GroupId).includes("DatabaseSecurityGroup"),
    );
    expect(ingress).toHaveLength(2);
    for (const [, r] of ingress) {
      expect(r.Properties).toMatchObject({ IpProtocol: "tcp", FromPort: 5432, ToPort: 5432 });
      expect(r.Properties?.CidrIp).toBeUndefined();
      expect(r.Properties?.CidrIpv6).toBeUndefined();
    }
    const sources = ingress.map(([, r]) => refersTo(r.Properties?.SourceSecurityGroupId));
    expect(sources.filter((s) => /Functions/.test(s))).toHaveLength(1);
    expect(sources.filter((s) => /Tasks/.test(s))).toHaveLength(1);
  });
});

describe("RDS: the functions", () => {
  it("every function (agent, fetch, search, scaler, the browser front door) runs in the private subnets with the functions' group; with Neon none is in a VPC", () => {
    const fns = functionsOf(rds);
    expect(fns).toHaveLength(5);
    expect(fns.map(([, fn]) => fn.Properties?.Handler)).toContain("front-door.handler");
    for (const [id, fn] of fns) {
      const vpc = fn.Properties?.VpcConfig as { SubnetIds: unknown; SecurityGroupIds: unknown } | undefined;
      expect(vpc, id).toBeDefined();
      expect(JSON.stringify(vpc?.SubnetIds), id).toMatch(/functionsSubnet/);
      expect(JSON.stringify(vpc?.SecurityGroupIds), id).toMatch(/Functions/);
    }
    for (const [id, fn] of functionsOf(neon)) expect(fn.Properties?.VpcConfig, id).toBeUndefined();
    expect(resources(rds, "network", "AWS::EC2::NatGateway")).toHaveLength(1);
    expect(resources(neon, "network", "AWS::EC2::NatGateway")).toHaveLength(0);
  });

  it("speak pg with the Lambda runtime's CA bundle; Neon keeps its driver and no bundle", () => {
    for (const [id, fn] of functionsOf(rds)) {
      const env = envOf(fn);
      expect(env, id).toMatchObject({ OSPREY_DB_DRIVER: "pg", NODE_EXTRA_CA_CERTS: LAMBDA_CA_BUNDLE });
      expect(JSON.stringify(env.OSPREY_SECRET_ENV), id).toMatch(/DATABASE_URL=/);
    }
    for (const [id, fn] of functionsOf(neon)) {
      const env = envOf(fn);
      expect(env.OSPREY_DB_DRIVER, id).toBe("neon");
      expect(env.NODE_EXTRA_CA_CERTS, id).toBeUndefined();
    }
  });

  it("each reads only its own secrets: the database secret by ARN, the vault key for agent only", () => {
    const policies = [...resources(rds, "edge", "AWS::IAM::Policy"), ...resources(rds, "containers", "AWS::IAM::Policy")];
    const of = (prefix: string) => JSON.stringify(policies.find(([id]) => id.startsWith(prefix))?.[1].Properties ?? {});
    for (const fn of ["AgentFunction", "FetchFunction", "SearchFunction", "Scaler"]) {
      expect(of(fn), fn).toMatch(/DatabaseSecret|Databaseosprey|osprey-data/);
    }
    expect(of("SearchFunction").match(/secretsmanager:GetSecretValue/g) ?? []).toHaveLength(1);
    expect(of("Scaler").match(/secretsmanager:GetSecretValue/g) ?? []).toHaveLength(1);
    expect(of("FetchFunction")).not.toContain("VaultKey");
  });

  it("no policy allows a wildcard action; the managed policies are Lambda's basic and VPC-access roles only", () => {
    const offenders: string[] = [];
    for (const [stack, tpl] of Object.entries(rds)) {
      for (const [id, r] of Object.entries(tpl.toJSON().Resources as Record<string, Resource>)) {
        const p = r.Properties ?? {};
        const docs = [
          p.PolicyDocument,
          ...((p.Policies as Array<{ PolicyDocument: unknown }> | undefined) ?? []).map((x) => x.PolicyDocument),
        ];
        for (const doc of docs.filter(Boolean))
          for (const st of (doc as { Statement: Array<{ Effect: string; Action: string | string[] }> }).Statement) {
            const actions = Array.isArray(st.Action) ? st.Action : [st.Action];
            if (st.Effect === "Allow" && actions.some((a) => typeof a === "string" && a.includes("*")))
              offenders.push(`${stack}/${id}: ${actions.join(",")}`);
          }
        for (const arn of (p.ManagedPolicyArns as unknown[] | undefined) ?? [])
          expect(JSON.stringify(arn), `${stack}/${id}`).toMatch(/AWSLambdaBasicExecutionRole|AWSLambdaVPCAccessExecutionRole/);
      }
    }
    expect(offenders).toEqual([]);
  });
});

describe("RDS: the containers", () => {
  it("get the secret's JSON as DATABASE_URL from ECS and the image's RDS CA bundle", () => {
    const container = workerOf(rds);
    const env = Object.fromEntries(
      ((container.Environment ?? []) as Array<{ Name: string; Value: unknown }>).map((e) => [e.Name, e.Value]),
    );
    expect(env.NODE_EXTRA_CA_CERTS).toBe(IMAGE_RDS_CA_BUNDLE);
    const secrets = ((container.Secrets ?? []) as Array<{ Name: string }>).map((s) => s.Name);
    expect(secrets).toContain("DATABASE_URL");
    const neonEnv = (workerOf(neon).Environment ?? []) as Array<{ Name: string }>;
    expect(neonEnv.map((e) => e.Name)).not.toContain("NODE_EXTRA_CA_CERTS");
  });

  it("the image downloads the RDS CA bundle to the path the task names", async () => {
    const { readFileSync } = await import("node:fs");
    const dockerfile = readFileSync(path.join(ROOT, "containers/Dockerfile"), "utf8");
    expect(dockerfile).toMatch(
      new RegExp(`truststore\\.pki\\.rds\\.amazonaws\\.com/global/global-bundle\\.pem\\s+${IMAGE_RDS_CA_BUNDLE}`),
    );
  });

  it("MigrateCommand runs osprey migrate as a one-off task of the worker's definition, in the service's subnets and group", () => {
    const out = rds.containers.toJSON().Outputs as Record<string, { Value: unknown }>;
    const value = JSON.stringify(out.MigrateCommand?.Value);
    expect(value).toContain("aws ecs run-task --cluster osprey --launch-type FARGATE");
    expect(value).toContain(
      JSON.stringify(JSON.stringify({ containerOverrides: [{ name: "worker", command: MIGRATE_COMMAND }] })).slice(1, -1),
    );
    expect(value).toMatch(/WorkerTaskDefinition|Worker[0-9A-F]{8}/);
    expect(value).toMatch(/TasksSecurityGroup|Tasks[0-9A-F]{8}/);
    expect(value).toContain("assignPublicIp=ENABLED");
  });
});

describe("resource lists", () => {
  it("match the snapshot for both variants (type and logical id, sorted, per stack)", () => {
    const list = (set: Record<StackName, Template>) =>
      Object.fromEntries(
        Object.entries(set).map(([name, tpl]) => [
          name,
          Object.entries(tpl.toJSON().Resources as Record<string, Resource>)
            .map(([id, r]) => `${r.Type} ${id}`)
            .sort(),
        ]),
      );
    expect({ rds: list(rds), neon: list(neon) }).toMatchSnapshot();
  });
});
