import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Everything a deployment can choose, in one typed object. The stacks read this and nothing else:
 * no context lookups inside them. `infra/app.ts` builds it from the defaults below and a handful
 * of CDK context keys (`-c database=rds`, `-c domain=…`), read in `propsFromContext` only.
 */

export type Surface = "agent" | "fetch" | "search";

export interface FunctionSize {
  memoryMb: number;
  timeoutSeconds: number;
}

/**
 * An RDS for PostgreSQL instance in the deployment's VPC (data-stack.ts). The functions then run in
 * the VPC too, in private subnets whose way out is a NAT gateway (network-stack.ts), and speak
 * Postgres over TCP with `pg` (OSPREY_DB_DRIVER=pg).
 */
export interface RdsProps {
  kind: "rds";
  /** A Graviton burstable class: db.t4g.micro (2 vCPU, 1 GiB) is enough to try; t4g.small or medium for use. */
  instanceClass: `t4g.${"micro" | "small" | "medium" | "large"}` | `m7g.${"large" | "xlarge"}` | `r7g.${"large" | "xlarge"}`;
  /** Major version (16 or later); minor versions upgrade in the maintenance window. */
  engineMajor: 16 | 17;
  /** gp3 storage, GiB; grows on its own up to maxStorageGb. */
  storageGb: number;
  maxStorageGb: number;
  multiAz: boolean;
  backupRetentionDays: number;
  databaseName: string;
  /** Secrets Manager name of the generated credentials (RDS's JSON: username, password, host, port, dbname). */
  secretName: string;
  /** NAT gateways for the functions' way out: 1 (one AZ, cheapest) or 2 (one per AZ, survives an AZ outage). */
  natGateways: 1 | 2;
}

export interface OspreyDeployProps {
  /** Prefix of stack and resource names (lower-case letters, digits, hyphens). */
  name: string;
  /** Where to deploy; unset: environment-agnostic stacks (synth needs no account, deploy takes the CLI's). */
  env?: { account: string; region: string };
  /**
   * The database (`-c database=neon|rds`): Neon, its connection string in a Secrets Manager secret
   * the operator fills before deploying (`infra:deploy` checks it); or RDS for PostgreSQL in the VPC
   * (RdsProps), whose generated credentials are the secret.
   */
  database: { kind: "neon"; urlSecretName: string } | RdsProps;
  /**
   * Custom host names (agent.<zone>, …) on the CloudFront distributions: a Route 53 zone and an ACM
   * certificate in us-east-1 covering them. Unset: the distributions' own *.cloudfront.net names.
   */
  domain?: { zoneName: string; hostedZoneId: string; certificateArn: string };
  /** Host labels under the domain. */
  hosts: Record<Surface | "browser", string>;
  /** Lambda size and time limit per surface; timeouts follow what each one streams (README). */
  functions: Record<Surface, FunctionSize> & { scaler: FunctionSize; frontDoor: FunctionSize };
  /**
   * The browser sessions' front door (functions/edge/front-door.ts, infra/README.md): how long a
   * `POST {browser_url}` that finds no container waits for one before its 503. Below CloudFront's
   * origin timeout and the function's own.
   */
  frontDoor: { waitSeconds: number };
  /** How long CloudFront waits for bytes from an origin (60 s unless AWS raised the quota, up to 180 s). */
  originReadTimeoutSeconds: number;
  containers: {
    /** Fargate CPU units and memory (MiB): one Chromium per run and per session. */
    cpu: number;
    memoryMb: number;
    arch: "arm64" | "x86_64";
    /** Runs one container takes at once (OSPREY_WORKER_CONCURRENCY). */
    runSlots: number;
    /** Browser sessions one container holds (OSPREY_BROWSER_MAX_SESSIONS). */
    sessionSlots: number;
    /** Chromium processes kept launched for new sessions (OSPREY_BROWSER_WARM_POOL). */
    warmPool: number;
    /** Containers kept with no demand (0 scales to zero; sessions then wait for a run to start one). */
    warmFloor: number;
    maxTasks: number;
    /** The steady path's target: demand as a percentage of the running containers' slots. */
    targetUtilizationPercent: number;
    scaleInCooldownSeconds: number;
    /** A container idle this long gives up its scale-in protection (containers/cloud/task-protection.ts). */
    idleUnprotectSeconds: number;
    logRetentionDays: number;
  };
  scaler: {
    /** 1 keeps passes in order across invocations (functions/scaler/scaler.ts); 0 leaves it unreserved. */
    reservedConcurrency: number;
  };
  queue: {
    /** Receives after which the worker fails a run (containers/local/run-stack.ts MAX_RECEIVES); SQS redrives one later. */
    maxReceives: number;
    visibilityTimeoutSeconds: number;
    retentionDays: number;
    /** Alarm when the oldest waiting run is older than this. */
    oldestMessageAlarmSeconds: number;
    /** Alarm when the dead-letter queue holds at least this many messages. */
    deadLetterAlarmThreshold: number;
  };
  storage: {
    /** Fetch cache bodies (prefix fetch-cache/): a cache row whose body expired reads as a miss. */
    fetchCacheDays: number;
    /** Live-view frames (runs/live_*): only the newest frame of a running run matters. */
    liveFrameDays: number;
    /** Recording frame lists (runs/rec_*). */
    recordingDays: number;
    /** Every run artifact (steps, recording frames); 0 keeps them. */
    runArtifactDays: number;
  };
  model: { provider: "openai" | "anthropic"; model: string; baseUrl?: string; apiKeySecretName?: string } | null;
  /** Where alarms are mailed; unset: the SNS topic has no subscriber. */
  alarmEmail?: string;
  logLevel: "debug" | "info" | "warn" | "error";
  /** Files the stacks package: the edge bundles (`npm run build`) and the image's build context. */
  paths: { functionsDir: string; repoRoot: string };
}

const REPO_ROOT = fileURLToPath(new URL("../", import.meta.url));

/** CDK feature settings for the App (app.ts and the tests build it the same way). */
export const APP_CONTEXT = { "@aws-cdk/core:defaultCrossStackReferences": "strong" };

/** The S3 key prefixes (OSPREY_S3_PREFIX) per writer: lifecycle rules and IAM follow them. */
export const S3_PREFIXES = { runs: "runs", fetchCache: "fetch-cache" } as const;

/** Container ports (containers/Dockerfile sets the health port; the others are set here). */
export const PORTS = { health: 8081, browser: 8082, render: 8083 } as const;

export const defaultProps: OspreyDeployProps = {
  name: "osprey",
  database: { kind: "neon", urlSecretName: "osprey/database-url" },
  hosts: { agent: "agent", fetch: "fetch", search: "search", browser: "browser" },
  functions: {
    // /run blocks up to 14.5 min (functions/edge/agent-surface.ts LAMBDA_RESPONSE_CAP_MS).
    agent: { memoryMb: 1024, timeoutSeconds: 900 },
    // A fetch batch runs up to 120 s (spec 4.6), extraction and PDF.js in the invocation.
    fetch: { memoryMb: 2048, timeoutSeconds: 180 },
    search: { memoryMb: 1024, timeoutSeconds: 30 },
    scaler: { memoryMb: 256, timeoutSeconds: 30 },
    // Waits up to frontDoor.waitSeconds for a container, then forwards one small request.
    frontDoor: { memoryMb: 256, timeoutSeconds: 60 },
  },
  frontDoor: { waitSeconds: 45 },
  originReadTimeoutSeconds: 60,
  containers: {
    cpu: 2048,
    memoryMb: 4096,
    arch: "arm64",
    runSlots: 2,
    sessionSlots: 8,
    warmPool: 1,
    warmFloor: 1,
    maxTasks: 20,
    targetUtilizationPercent: 100,
    scaleInCooldownSeconds: 300,
    idleUnprotectSeconds: 120,
    logRetentionDays: 30,
  },
  scaler: { reservedConcurrency: 1 },
  queue: {
    maxReceives: 5,
    visibilityTimeoutSeconds: 30,
    retentionDays: 4,
    oldestMessageAlarmSeconds: 600,
    deadLetterAlarmThreshold: 1,
  },
  storage: { fetchCacheDays: 30, liveFrameDays: 2, recordingDays: 30, runArtifactDays: 0 },
  model: null,
  logLevel: "info",
  paths: { functionsDir: path.join(REPO_ROOT, "dist/functions"), repoRoot: REPO_ROOT },
};

/** The RDS settings `-c database=rds` starts from (`-c dbInstanceClass=…` changes the class). */
export const defaultRds = (name: string): RdsProps => ({
  kind: "rds",
  instanceClass: "t4g.micro",
  engineMajor: 16,
  storageGb: 20,
  maxStorageGb: 100,
  multiAz: false,
  backupRetentionDays: 7,
  databaseName: "osprey",
  secretName: `${name}/database`,
  natGateways: 1,
});

const RDS_CLASSES = new Set([
  "t4g.micro",
  "t4g.small",
  "t4g.medium",
  "t4g.large",
  "m7g.large",
  "m7g.xlarge",
  "r7g.large",
  "r7g.xlarge",
]);

/** Problems a deployment would hit later, found before synth; empty when fine. */
export function propsProblems(p: OspreyDeployProps): string[] {
  const out: string[] = [];
  if (!/^[a-z][a-z0-9-]{1,20}$/.test(p.name)) out.push("name must be 2-21 lower-case letters, digits or hyphens");
  const c = p.containers;
  if (c.warmFloor < 0 || c.warmFloor > c.maxTasks) out.push("containers.warmFloor must be between 0 and maxTasks");
  if (c.runSlots < 1 || c.sessionSlots < 1) out.push("containers.runSlots and sessionSlots must be at least 1");
  if (p.queue.maxReceives < 1) out.push("queue.maxReceives must be at least 1");
  if (p.originReadTimeoutSeconds < 1 || p.originReadTimeoutSeconds > 180)
    out.push("originReadTimeoutSeconds must be between 1 and 180");
  if (p.domain && !/^arn:aws[a-z-]*:acm:us-east-1:/.test(p.domain.certificateArn))
    out.push("domain.certificateArn must be an ACM certificate in us-east-1 (CloudFront's region)");
  const wait = p.frontDoor.waitSeconds;
  if (
    !Number.isInteger(wait) ||
    wait < 1 ||
    wait >= p.originReadTimeoutSeconds ||
    wait + 10 > p.functions.frontDoor.timeoutSeconds
  )
    out.push(
      "frontDoor.waitSeconds must be at least 1, below originReadTimeoutSeconds, and 10 s below functions.frontDoor.timeoutSeconds",
    );
  if (p.functions.agent.timeoutSeconds > 900) out.push("functions.agent.timeoutSeconds must be at most 900 (Lambda's limit)");
  const db = p.database;
  if (db.kind === "rds") {
    if (!RDS_CLASSES.has(db.instanceClass))
      out.push(`database.instanceClass must be a Graviton class, one of ${[...RDS_CLASSES].join(", ")}`);
    if (db.engineMajor < 16) out.push("database.engineMajor must be 16 or later");
    if (db.storageGb < 20 || db.maxStorageGb < db.storageGb)
      out.push("database.storageGb must be at least 20 (gp3's minimum) and at most maxStorageGb");
    if (db.backupRetentionDays < 1 || db.backupRetentionDays > 35)
      out.push("database.backupRetentionDays must be between 1 and 35 (0 would turn automated backups off)");
    if (!/^[a-z][a-z0-9_]{0,62}$/.test(db.databaseName))
      out.push("database.databaseName must be a lower-case Postgres identifier");
  }
  return out;
}

/** The only reader of CDK context: a few keys over the defaults. */
export function propsFromContext(get: (key: string) => unknown, base: OspreyDeployProps = defaultProps): OspreyDeployProps {
  const str = (k: string) => {
    const v = get(k);
    return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
  };
  const num = (k: string) => {
    const v = str(k);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n)) throw new Error(`context ${k} must be an integer (got "${v}")`);
    return n;
  };
  const props: OspreyDeployProps = structuredClone(base);
  props.name = str("name") ?? props.name;
  const account = str("account");
  const region = str("region");
  if (account && region) props.env = { account, region };
  const db = str("database");
  if (db === "rds") {
    const rds = defaultRds(props.name);
    const cls = str("dbInstanceClass");
    if (cls !== undefined) rds.instanceClass = cls.replace(/^db\./, "") as RdsProps["instanceClass"];
    rds.multiAz = str("dbMultiAz") === "true";
    const nat = num("natGateways");
    if (nat !== undefined) {
      if (nat !== 1 && nat !== 2) throw new Error(`context natGateways must be 1 or 2 (got "${nat}")`);
      rds.natGateways = nat;
    }
    props.database = rds;
  } else if (db === undefined || db === "neon") {
    props.database = { kind: "neon", urlSecretName: str("neonSecretName") ?? `${props.name}/database-url` };
  } else {
    throw new Error(`context database must be neon or rds (got "${db}")`);
  }
  const zone = str("domain");
  if (zone) {
    const hostedZoneId = str("hostedZoneId");
    const certificateArn = str("certificateArn");
    if (!hostedZoneId || !certificateArn)
      throw new Error("context domain needs hostedZoneId and certificateArn (an ACM certificate in us-east-1)");
    props.domain = { zoneName: zone, hostedZoneId, certificateArn };
  }
  props.containers.warmFloor = num("warmFloor") ?? props.containers.warmFloor;
  props.containers.maxTasks = num("maxTasks") ?? props.containers.maxTasks;
  const arch = str("arch");
  if (arch === "arm64" || arch === "x86_64") props.containers.arch = arch;
  else if (arch !== undefined) throw new Error(`context arch must be arm64 or x86_64 (got "${arch}")`);
  const provider = str("llmProvider");
  if (provider === "openai" || provider === "anthropic") {
    const baseUrl = str("llmBaseUrl");
    const apiKeySecretName = str("llmApiKeySecret") ?? `${props.name}/llm-api-key`;
    props.model = { provider, model: str("llmModel") ?? "", ...(baseUrl ? { baseUrl } : {}), apiKeySecretName };
  } else if (provider !== undefined) throw new Error(`context llmProvider must be openai or anthropic (got "${provider}")`);
  const email = str("alarmEmail");
  if (email) props.alarmEmail = email;
  const problems = propsProblems(props);
  if (problems.length > 0) throw new Error(`invalid deployment settings: ${problems.join("; ")}`);
  return props;
}
