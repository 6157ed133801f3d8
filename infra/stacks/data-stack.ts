import { Duration, RemovalPolicy, SecretValue, Stack, type StackProps } from "aws-cdk-lib";
import { InstanceType, Port, SecurityGroup, SubnetType, type Vpc } from "aws-cdk-lib/aws-ec2";
import {
  CaCertificate,
  Credentials,
  DatabaseInstance,
  DatabaseInstanceEngine,
  DatabaseSecret,
  PostgresEngineVersion,
  StorageType,
} from "aws-cdk-lib/aws-rds";
import { type ISecret, Secret } from "aws-cdk-lib/aws-secretsmanager";
import type { Construct } from "constructs";
import type { OspreyDeployProps, RdsProps } from "../config.ts";

/** Postgres's port: the database security group admits the functions and the containers on it only. */
export const POSTGRES_PORT = 5432;

/** RDS only: where the instance goes and who reaches it. */
export interface DataStackNetwork {
  vpc: Vpc;
  functionsSecurityGroup: SecurityGroup;
}

/** Put into the database URL and model key secrets at creation; `infra:deploy` refuses to go on while it is there. */
export const UNSET_SECRET_VALUE = "unset: put the value with infra:deploy or aws secretsmanager put-secret-value";

/**
 * The secrets every other stack reads: the Neon connection string and the model API key (values
 * the operator supplies: created holding UNSET_SECRET_VALUE, filled by `infra:deploy`), and two
 * generated here, the vault key (OSPREY_VAULT_KEY: 64 hex characters, functions/vault/crypto.ts)
 * and the render secret the fetch function and the containers share (OSPREY_RENDERER_SECRET).
 * All are kept when the stack is deleted: losing the vault key loses every sealed credential.
 *
 * With RDS the database URL secret is the instance's generated credentials instead (RDS's JSON,
 * which functions/config/secret-env.ts turns into a verify-full URL), and the instance lives here.
 */
export class DataStack extends Stack {
  readonly databaseUrl: ISecret;
  /** RDS only: the instance and its security group (the containers stack adds its tasks to the ingress). */
  readonly rds: { instance: DatabaseInstance; securityGroup: SecurityGroup } | null;
  readonly vaultKey: ISecret;
  readonly renderSecret: ISecret;
  readonly llmApiKey: ISecret | null;

  constructor(scope: Construct, id: string, deploy: OspreyDeployProps, network: DataStackNetwork | null, props: StackProps = {}) {
    super(scope, id, {
      ...props,
      description:
        deploy.database.kind === "rds"
          ? "Osprey: the RDS database, vault key, render secret and model key"
          : "Osprey: the database URL, vault key, render secret and model key",
    });
    const operatorSecret = (cid: string, secretName: string, description: string) => {
      const s = new Secret(this, cid, {
        secretName,
        description,
        secretStringValue: SecretValue.unsafePlainText(UNSET_SECRET_VALUE),
      });
      s.applyRemovalPolicy(RemovalPolicy.RETAIN);
      return s;
    };
    // 64 characters of 0-9a-f: 32 random bytes as hex, a format parseVaultKey accepts.
    const hexKey = (cid: string, secretName: string, description: string) => {
      const s = new Secret(this, cid, {
        secretName,
        description,
        generateSecretString: {
          passwordLength: 64,
          excludeUppercase: true,
          excludePunctuation: true,
          includeSpace: false,
          excludeCharacters: "ghijklmnopqrstuvwxyz",
          requireEachIncludedType: false,
        },
      });
      s.applyRemovalPolicy(RemovalPolicy.RETAIN);
      return s;
    };
    if (deploy.database.kind === "rds") {
      if (!network) throw new Error("the RDS data stack needs the network stack's VPC");
      this.rds = rdsInstance(this, deploy.database, network);
      this.databaseUrl = this.rds.instance.secret as ISecret;
    } else {
      this.rds = null;
      this.databaseUrl = operatorSecret(
        "DatabaseUrl",
        deploy.database.urlSecretName,
        "Osprey DATABASE_URL: the Neon connection string (postgres://…?sslmode=require)",
      );
    }
    this.vaultKey = hexKey("VaultKey", `${deploy.name}/vault-key`, "Osprey OSPREY_VAULT_KEY: seals vault items and profiles");
    this.renderSecret = hexKey(
      "RenderSecret",
      `${deploy.name}/render-secret`,
      "Osprey OSPREY_RENDERER_SECRET: the fetch function's credential at the containers' render endpoint",
    );
    this.llmApiKey = deploy.model?.apiKeySecretName
      ? operatorSecret("LlmApiKey", deploy.model.apiKeySecretName, "Osprey OSPREY_LLM_API_KEY: the model provider's key")
      : null;
  }
}

/**
 * RDS for PostgreSQL: Graviton, gp3, encrypted at rest (the AWS-managed key), in the isolated
 * subnets (no route to or from the internet), not publicly accessible, TLS required
 * (rds.force_ssl), automated backups, deletion protection, and a final snapshot if the stack is
 * ever deleted anyway. The master credentials are generated into Secrets Manager (RDS's JSON,
 * kept on deletion: the snapshot needs them). Its security group admits the functions here and the
 * containers (containers-stack.ts) on 5432, nothing else, and sends nothing out.
 *
 * No RDS Proxy: a Lambda instance holds at most 5 connections (functions/edge/edge-root.ts), idle
 * ones closing after 30 s; db.t4g.micro allows about 100 (LEAST(DBInstanceClassMemory/9531392, 5000)),
 * so some 15 busy function instances beside the containers. A proxy
 * costs at least 2 vCPU-hours an hour ($0.015 each: about $22 a month), more than the micro
 * instance, and adds a hop. Past that scale, add one (README, "Deploy to AWS").
 */
function rdsInstance(
  stack: Stack,
  rds: RdsProps,
  network: DataStackNetwork,
): { instance: DatabaseInstance; securityGroup: SecurityGroup } {
  const securityGroup = new SecurityGroup(stack, "DatabaseSecurityGroup", {
    vpc: network.vpc,
    description: "Osprey database: Postgres from the functions and the browser containers only",
    allowAllOutbound: false,
  });
  securityGroup.addIngressRule(network.functionsSecurityGroup, Port.tcp(POSTGRES_PORT), "functions to Postgres");
  const version = rds.engineMajor === 17 ? PostgresEngineVersion.VER_17 : PostgresEngineVersion.VER_16;
  // Generated by Secrets Manager; RDS adds host, port, dbname and engine once the instance exists.
  const credentials = new DatabaseSecret(stack, "DatabaseCredentials", { username: "osprey", secretName: rds.secretName });
  credentials.applyRemovalPolicy(RemovalPolicy.RETAIN);
  const instance = new DatabaseInstance(stack, "Database", {
    engine: DatabaseInstanceEngine.postgres({ version }),
    instanceType: new InstanceType(rds.instanceClass),
    vpc: network.vpc,
    vpcSubnets: { subnetType: SubnetType.PRIVATE_ISOLATED },
    securityGroups: [securityGroup],
    publiclyAccessible: false,
    multiAz: rds.multiAz,
    databaseName: rds.databaseName,
    credentials: Credentials.fromSecret(credentials),
    storageType: StorageType.GP3,
    allocatedStorage: rds.storageGb,
    maxAllocatedStorage: rds.maxStorageGb,
    storageEncrypted: true,
    // The CA that signs the server certificate: in the Lambda runtime's bundle and in the image's.
    caCertificate: CaCertificate.RDS_CA_RSA2048_G1,
    parameters: { "rds.force_ssl": "1" },
    backupRetention: Duration.days(rds.backupRetentionDays),
    deleteAutomatedBackups: false,
    deletionProtection: true,
    removalPolicy: RemovalPolicy.SNAPSHOT,
    autoMinorVersionUpgrade: true,
    enablePerformanceInsights: false,
    copyTagsToSnapshot: true,
  });
  return { instance, securityGroup };
}
