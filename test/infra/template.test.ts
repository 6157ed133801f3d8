import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { App, type Stack } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APP_CONTEXT, defaultProps, type OspreyDeployProps, propsFromContext } from "../../infra/config.ts";
import { buildOsprey } from "../../infra/osprey.ts";

/**
 * The synthesized deployment (infra/), checked on its CloudFormation: every resource issue [5 of 6]
 * asks for, with the properties that matter, the environment of each function and task read back
 * against the names functions/config/*.ts parses, least privilege in every policy, and a snapshot of
 * the resource list. Synthesized once for the file, offline, over stand-in edge bundles.
 */

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
let dir: string;
let templates: Record<string, Template>;
let stacks: ReturnType<typeof buildOsprey>;
let outdir: string;
// The worker's limit, read from its source (importing it would load the whole worker).
const MAX_RECEIVES = Number(
  /export const MAX_RECEIVES = (\d+);/.exec(readFileSync(path.join(ROOT, "containers/local/run-stack.ts"), "utf8"))?.[1],
);

function stubBundles(functionsDir: string): void {
  mkdirSync(path.join(functionsDir, "chunks"), { recursive: true });
  for (const name of ["agent", "search", "browser", "scaler", "front-door"])
    writeFileSync(path.join(functionsDir, `${name}.mjs`), "export const handler = async () => ({ statusCode: 200 });\n");
  writeFileSync(path.join(functionsDir, "fetch.mjs"), 'import "./chunks/chunk-AAAABBBB.mjs";\nexport const handler = 1;\n');
  writeFileSync(path.join(functionsDir, "chunks/chunk-AAAABBBB.mjs"), 'export const x = () => import("./pdfjs-CCCCDDDD.mjs");\n');
  writeFileSync(path.join(functionsDir, "chunks/pdfjs-CCCCDDDD.mjs"), "export const pdf = 1;\n");
}

const props = (): OspreyDeployProps => ({
  ...defaultProps,
  model: { provider: "openai", model: "gpt-4.1-mini", apiKeySecretName: "osprey/llm-api-key" },
  paths: { functionsDir: path.join(dir, "functions"), repoRoot: ROOT },
});

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "osprey-infra-"));
  stubBundles(path.join(dir, "functions"));
  outdir = path.join(dir, "cdk.out");
  const app = new App({ outdir, context: APP_CONTEXT });
  stacks = buildOsprey(app, props());
  templates = Object.fromEntries(Object.entries(stacks).map(([k, s]) => [k, Template.fromStack(s as Stack)]));
  app.synth();
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const t = (name: keyof ReturnType<typeof buildOsprey>) => templates[name] as Template;
type Resource = { Type: string; Properties?: Record<string, unknown> };
const resources = (name: keyof ReturnType<typeof buildOsprey>, type?: string): Array<[string, Resource]> =>
  Object.entries(t(name).toJSON().Resources as Record<string, Resource>).filter(([, r]) => !type || r.Type === type);

/** A function's environment by its logical id prefix. */
const lambdaEnv = (stack: "edge" | "containers", idPrefix: string): Record<string, unknown> => {
  const fn = resources(stack, "AWS::Lambda::Function").find(([id]) => id.startsWith(idPrefix));
  return ((fn?.[1].Properties?.Environment as { Variables?: Record<string, unknown> })?.Variables ?? {}) as Record<
    string,
    unknown
  >;
};
const configSource = readdirSync(path.join(ROOT, "functions/config"))
  .map((f) => readFileSync(path.join(ROOT, "functions/config", f), "utf8"))
  .join("\n");

describe("queue", () => {
  it("redrives to the dead-letter queue one receive after the worker's own limit", () => {
    expect(MAX_RECEIVES).toBe(defaultProps.queue.maxReceives);
    t("queue").hasResourceProperties("AWS::SQS::Queue", {
      RedrivePolicy: { maxReceiveCount: MAX_RECEIVES + 1, deadLetterTargetArn: Match.anyValue() },
      SqsManagedSseEnabled: true,
    });
    expect(resources("queue", "AWS::SQS::Queue")).toHaveLength(2);
  });

  it("alarms on dead-letter depth and on the oldest waiting run, to the alarm topic", () => {
    t("queue").hasResourceProperties("AWS::CloudWatch::Alarm", {
      MetricName: "ApproximateNumberOfMessagesVisible",
      Namespace: "AWS/SQS",
      Threshold: 1,
      ComparisonOperator: "GreaterThanOrEqualToThreshold",
      AlarmActions: [Match.anyValue()],
    });
    t("queue").hasResourceProperties("AWS::CloudWatch::Alarm", {
      MetricName: "ApproximateAgeOfOldestMessage",
      Threshold: 600,
      AlarmActions: [Match.anyValue()],
    });
  });
});

describe("storage", () => {
  it("is encrypted, blocks public access, refuses plain HTTP, and expires cache, live frames and recordings by prefix", () => {
    t("storage").hasResourceProperties("AWS::S3::Bucket", {
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: "AES256" } }] },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({ Id: "fetch-cache", Prefix: "fetch-cache/", ExpirationInDays: 30, Status: "Enabled" }),
          Match.objectLike({ Id: "live-frames", Prefix: "runs/live_", ExpirationInDays: 2 }),
          Match.objectLike({ Id: "recordings", Prefix: "runs/rec_", ExpirationInDays: 30 }),
        ]),
      },
    });
    t("storage").hasResourceProperties("AWS::S3::BucketPolicy", {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } }),
        ]),
      },
    });
  });
});

describe("edge functions", () => {
  it("one ARM64 Node 22 function per surface, each behind a RESPONSE_STREAM function URL and a CloudFront host", () => {
    const fns = resources("edge", "AWS::Lambda::Function");
    expect(fns.map(([, r]) => r.Properties?.Handler).sort()).toEqual([
      "agent.handler",
      "fetch.handler",
      "front-door.handler",
      "search.handler",
    ]);
    for (const [, r] of fns) expect(r.Properties).toMatchObject({ Architectures: ["arm64"], Runtime: "nodejs22.x" });
    const urls = resources("edge", "AWS::Lambda::Url");
    expect(urls).toHaveLength(3);
    for (const [, r] of urls) expect(r.Properties).toMatchObject({ InvokeMode: "RESPONSE_STREAM", AuthType: "NONE" });
    expect(resources("edge", "AWS::CloudFront::Distribution")).toHaveLength(3);
    t("edge").hasResourceProperties("AWS::Lambda::Function", { Handler: "agent.handler", Timeout: 900, MemorySize: 1024 });
    t("edge").hasResourceProperties("AWS::Lambda::Function", { Handler: "fetch.handler", Timeout: 180, MemorySize: 2048 });
  });

  it("each function's package holds its own bundle and the chunks it imports, nothing else", () => {
    const assets = JSON.parse(readFileSync(path.join(outdir, "osprey-edge.assets.json"), "utf8")) as {
      files: Record<string, { source: { path: string } }>;
    };
    const contents = Object.values(assets.files)
      .map((f) => f.source.path)
      .filter((p) => p.startsWith("asset."))
      .map((p) => {
        const files: string[] = [];
        const walk = (d: string, rel: string) => {
          for (const e of readdirSync(d, { withFileTypes: true }))
            if (e.isDirectory()) walk(path.join(d, e.name), `${rel}${e.name}/`);
            else files.push(`${rel}${e.name}`);
        };
        walk(path.join(outdir, p), "");
        return files.sort().join(" ");
      })
      .sort();
    expect(contents).toEqual([
      "agent.mjs",
      "chunks/chunk-AAAABBBB.mjs chunks/pdfjs-CCCCDDDD.mjs fetch.mjs",
      "front-door.mjs",
      "search.mjs",
    ]);
  });

  it("environments: the names functions/config parses, secrets named (never valued), the right prefix per writer", () => {
    const agent = lambdaEnv("edge", "AgentFunction");
    const fetch = lambdaEnv("edge", "FetchFunction");
    const search = lambdaEnv("edge", "SearchFunction");
    expect(Object.keys(agent).sort()).toEqual(
      [
        "NODE_OPTIONS",
        "OSPREY_BLOB_STORE",
        "OSPREY_DB_DRIVER",
        "OSPREY_LLM_MODEL",
        "OSPREY_LLM_PROVIDER",
        "OSPREY_LOG_LEVEL",
        "OSPREY_S3_BUCKET",
        "OSPREY_S3_PREFIX",
        "OSPREY_SCALER_FUNCTION",
        "OSPREY_SECRET_ENV",
        "OSPREY_SQS_DLQ_URL",
        "OSPREY_SQS_QUEUE_URL",
      ].sort(),
    );
    expect(agent).toMatchObject({ OSPREY_BLOB_STORE: "s3", OSPREY_S3_PREFIX: "runs", OSPREY_DB_DRIVER: "neon" });
    expect(agent.OSPREY_SCALER_FUNCTION).toBe("osprey-scaler");
    expect(fetch).toMatchObject({ OSPREY_BLOB_STORE: "s3", OSPREY_S3_PREFIX: "fetch-cache" });
    expect(JSON.stringify(fetch.OSPREY_RENDERER_URL)).toContain("/internal/render");
    expect(Object.keys(search).sort()).toEqual(["NODE_OPTIONS", "OSPREY_DB_DRIVER", "OSPREY_LOG_LEVEL", "OSPREY_SECRET_ENV"]);
    const secretNames = (env: Record<string, unknown>) =>
      [...JSON.stringify(env.OSPREY_SECRET_ENV).matchAll(/"[,]?([A-Z_]+)="/g)].map((m) => m[1]);
    expect(secretNames(agent)).toEqual(["DATABASE_URL", "OSPREY_VAULT_KEY", "OSPREY_LLM_API_KEY"]);
    expect(secretNames(fetch)).toEqual(["DATABASE_URL", "OSPREY_RENDERER_SECRET"]);
    expect(secretNames(search)).toEqual(["DATABASE_URL"]);
    for (const env of [agent, fetch, search]) {
      for (const name of Object.keys(env)) if (name !== "NODE_OPTIONS") expect(configSource, name).toContain(`${name}`);
      expect(env).not.toHaveProperty("DATABASE_URL");
    }
  });

  it("each function reads only its own secrets and bucket prefix", () => {
    const policies = resources("edge", "AWS::IAM::Policy").map(([id, r]) => [id, JSON.stringify(r.Properties)] as const);
    const of = (prefix: string) => policies.find(([id]) => id.startsWith(prefix))?.[1] ?? "";
    expect(of("AgentFunction")).toContain("runs/*");
    expect(of("AgentFunction")).not.toContain("fetch-cache");
    expect(of("AgentFunction")).not.toContain("s3:PutObject");
    expect(of("FetchFunction")).toContain("fetch-cache/*");
    expect(of("FetchFunction")).not.toContain("runs/*");
    expect(of("SearchFunction")).not.toContain("s3:");
    expect((of("SearchFunction").match(/secretsmanager:GetSecretValue/g) ?? []).length).toBe(1);
    expect(of("FetchFunction")).not.toContain("VaultKey");
    expect(of("AgentFunction")).toContain("lambda:InvokeFunction");
    expect(of("AgentFunction")).toContain(":function:osprey-scaler");
  });
});

describe("containers", () => {
  it("a Fargate task from containers/Dockerfile, ARM64, 2 vCPU / 4 GiB, 120 s stop, the launcher command, logs", () => {
    t("containers").hasResourceProperties("AWS::ECS::TaskDefinition", {
      Cpu: "2048",
      Memory: "4096",
      RequiresCompatibilities: ["FARGATE"],
      RuntimePlatform: { CpuArchitecture: "ARM64", OperatingSystemFamily: "LINUX" },
      ContainerDefinitions: [
        Match.objectLike({
          Command: [
            "node",
            "--experimental-strip-types",
            "--disable-warning=ExperimentalWarning",
            "containers/cloud/ecs-worker.ts",
          ],
          StopTimeout: 120,
          LogConfiguration: Match.objectLike({ LogDriver: "awslogs" }),
          HealthCheck: Match.objectLike({ Retries: 3 }),
        }),
      ],
    });
    const assets = readFileSync(path.join(outdir, "osprey-containers.assets.json"), "utf8");
    expect(assets).toContain('"dockerFile": "containers/Dockerfile"');
    expect(assets).toContain('"platform": "linux/arm64"');
  });

  it("the task's environment and secrets: the names the worker parses, secrets from Secrets Manager", () => {
    const td = resources("containers", "AWS::ECS::TaskDefinition")[0]?.[1];
    const container = ((td?.Properties?.ContainerDefinitions ?? []) as Array<Record<string, unknown>>)[0] ?? {};
    const env = Object.fromEntries(
      (container.Environment as Array<{ Name: string; Value: unknown }>).map((e) => [e.Name, e.Value]),
    ) as Record<string, unknown>;
    expect(env).toMatchObject({
      HOST: "0.0.0.0",
      OSPREY_QUEUE: "sqs",
      OSPREY_BLOB_STORE: "s3",
      OSPREY_S3_PREFIX: "runs",
      OSPREY_HEALTH_PORT: "8081",
      OSPREY_BROWSER_PORT: "8082",
      OSPREY_RENDER_PORT: "8083",
      OSPREY_WORKER_CONCURRENCY: "2",
      OSPREY_BROWSER_MAX_SESSIONS: "8",
      OSPREY_BROWSER_WARM_POOL: "1",
      OSPREY_SHUTDOWN_TIMEOUT_MS: "110000",
      OSPREY_LLM_PROVIDER: "openai",
    });
    for (const k of [
      "OSPREY_SQS_QUEUE_URL",
      "OSPREY_SQS_DLQ_URL",
      "OSPREY_S3_BUCKET",
      "OSPREY_PUBLIC_URL",
      "OSPREY_BROWSER_PUBLIC_URL",
    ])
      expect(env[k], k).toBeDefined();
    for (const name of Object.keys(env)) expect(configSource, name).toContain(name);
    const secrets = (container.Secrets as Array<{ Name: string; ValueFrom: unknown }>).map((s) => s.Name).sort();
    expect(secrets).toEqual(["DATABASE_URL", "OSPREY_LLM_API_KEY", "OSPREY_RENDERER_SECRET", "OSPREY_VAULT_KEY"]);
    expect(env).not.toHaveProperty("DATABASE_URL");
  });

  it("the task role: its queue, runs/* in the bucket, its own scale-in protection, no secrets", () => {
    const role = resources("containers", "AWS::IAM::Policy").find(([id]) => id.startsWith("TaskRoleDefaultPolicy"));
    const doc = JSON.stringify(role?.[1].Properties);
    expect(doc).toContain("sqs:ReceiveMessage");
    expect(doc).toContain("runs/*");
    expect(doc).not.toContain("fetch-cache");
    expect(doc).toContain("ecs:UpdateTaskProtection");
    expect(doc).toContain("task/osprey/*");
    expect(doc).not.toContain("secretsmanager");
  });

  it("scaling: target tracking on the scaler's metric from the warm floor, the scaler every minute with one instance", () => {
    t("containers").hasResourceProperties("AWS::ApplicationAutoScaling::ScalableTarget", {
      MinCapacity: 1,
      MaxCapacity: 20,
      ScalableDimension: "ecs:service:DesiredCount",
    });
    t("containers").hasResourceProperties("AWS::ApplicationAutoScaling::ScalingPolicy", {
      PolicyType: "TargetTrackingScaling",
      TargetTrackingScalingPolicyConfiguration: Match.objectLike({
        TargetValue: 100,
        ScaleInCooldown: 300,
        CustomizedMetricSpecification: Match.objectLike({ Namespace: "Osprey", MetricName: "BrowserTaskUtilization" }),
      }),
    });
    t("containers").hasResourceProperties("AWS::Lambda::Function", {
      FunctionName: "osprey-scaler",
      Handler: "scaler.handler",
      Architectures: ["arm64"],
      ReservedConcurrentExecutions: 1,
    });
    t("containers").hasResourceProperties("AWS::Events::Rule", { ScheduleExpression: "rate(1 minute)" });
    const env = lambdaEnv("containers", "Scaler");
    expect(env).toMatchObject({
      OSPREY_SCALER_CLUSTER: "osprey",
      OSPREY_SCALER_SERVICE: "osprey-browser",
      OSPREY_SCALER_WARM_FLOOR: "1",
      OSPREY_SCALER_MAX_TASKS: "20",
      OSPREY_WORKER_CONCURRENCY: "2",
      OSPREY_BROWSER_MAX_SESSIONS: "8",
    });
    for (const name of Object.keys(env)) expect(configSource, name).toContain(name);
    const scalerPolicy = JSON.stringify(resources("containers", "AWS::IAM::Policy").find(([id]) => id.startsWith("Scaler"))?.[1]);
    expect(scalerPolicy).toContain("ecs:UpdateService");
    expect(scalerPolicy).toContain("sqs:GetQueueAttributes");
    expect(scalerPolicy).not.toContain("sqs:ReceiveMessage");
  });

  it("the service: no desired count in the template (a deploy must not reset the scaler's), rollback on failure", () => {
    const svc = resources("containers", "AWS::ECS::Service")[0]?.[1].Properties ?? {};
    expect(svc).not.toHaveProperty("DesiredCount");
    expect(svc).toMatchObject({
      LaunchType: "FARGATE",
      DeploymentConfiguration: { DeploymentCircuitBreaker: { Enable: true, Rollback: true } },
    });
  });
});

describe("network", () => {
  it("the load balancer answers only CloudFront's origin header, with websockets' idle timeout", () => {
    t("network").hasResourceProperties("AWS::ElasticLoadBalancingV2::Listener", {
      DefaultActions: [
        Match.objectLike({ Type: "fixed-response", FixedResponseConfig: Match.objectLike({ StatusCode: "403" }) }),
      ],
    });
    t("network").hasResourceProperties("AWS::ElasticLoadBalancingV2::ListenerRule", {
      Conditions: Match.arrayWith([
        Match.objectLike({ Field: "path-pattern", PathPatternConfig: { Values: ["/internal/render"] } }),
      ]),
    });
    t("network").hasResourceProperties("AWS::ElasticLoadBalancingV2::LoadBalancer", {
      LoadBalancerAttributes: Match.arrayWith([{ Key: "idle_timeout.timeout_seconds", Value: "4000" }]),
    });
    t("network").hasResourceProperties("AWS::ElasticLoadBalancingV2::TargetGroup", {
      Port: 8082,
      HealthCheckPort: "8081",
      HealthCheckPath: "/healthz",
      TargetType: "ip",
    });
    expect(resources("network", "AWS::EC2::NatGateway")).toHaveLength(0);
  });
});

describe("the browser sessions' front door", () => {
  const rules = () =>
    resources("edge", "AWS::ElasticLoadBalancingV2::ListenerRule").map(([id, r]) => ({
      id,
      priority: r.Properties?.Priority as number,
      conditions: r.Properties?.Conditions as Array<Record<string, unknown>>,
      target: JSON.stringify(r.Properties?.Actions),
    }));

  it("an ARM64 function, small, timed above its wait (itself below CloudFront's origin timeout), behind a Lambda target group", () => {
    const [[, fn] = ["", {} as Resource]] = resources("edge", "AWS::Lambda::Function").filter(
      ([, r]) => r.Properties?.Handler === "front-door.handler",
    );
    expect(fn.Properties).toMatchObject({ Architectures: ["arm64"], Runtime: "nodejs22.x", MemorySize: 256, Timeout: 60 });
    expect(fn.Properties?.ReservedConcurrentExecutions).toBeUndefined();
    const env = (fn.Properties?.Environment as { Variables: Record<string, unknown> } | undefined)?.Variables ?? {};
    expect(env).toMatchObject({
      OSPREY_FRONT_DOOR_WAIT_SECONDS: "45",
      OSPREY_FRONT_DOOR_HEALTH_PATH: "/healthz",
      OSPREY_SCALER_FUNCTION: "osprey-scaler",
    });
    expect(Number(env.OSPREY_FRONT_DOOR_WAIT_SECONDS)).toBeLessThan(defaultProps.originReadTimeoutSeconds);
    expect(JSON.stringify(env.OSPREY_FRONT_DOOR_ORIGIN)).toMatch(/http:\/\/.*Balancer.*DNSName/);
    // The bypass value is read from its secret at the first request, never set as a value.
    expect(JSON.stringify(env.OSPREY_SECRET_ENV)).toMatch(/DATABASE_URL=.*,OSPREY_FRONT_DOOR_SECRET=.*FrontDoorBypass/);
    expect(env.OSPREY_FRONT_DOOR_SECRET).toBeUndefined();
    t("edge").hasResourceProperties("AWS::ElasticLoadBalancingV2::TargetGroup", { TargetType: "lambda" });
    t("edge").hasResourceProperties("AWS::Lambda::Permission", {
      Action: "lambda:InvokeFunction",
      Principal: "elasticloadbalancing.amazonaws.com",
    });
    t("edge").hasResourceProperties("AWS::SecretsManager::Secret", {
      GenerateSecretString: Match.objectLike({ ExcludePunctuation: true, PasswordLength: 48 }),
    });
  });

  it("listener rules in order: render (10), the bypass header to the containers (14), POST / to the front door (16), the rest to the containers (20)", () => {
    const network = resources("network", "AWS::ElasticLoadBalancingV2::ListenerRule").map(([, r]) => r.Properties?.Priority);
    expect(network.sort()).toEqual([10, 20]);
    const [bypass, door] = rules().sort((a, b) => a.priority - b.priority);
    expect(bypass?.priority).toBe(14);
    expect(bypass?.conditions).toEqual([
      { Field: "http-header", HttpHeaderConfig: { HttpHeaderName: "x-osprey-bypass", Values: [expect.anything()] } },
    ]);
    // CloudFormation resolves the secret at deploy: the template holds a reference, not the value.
    expect(JSON.stringify(bypass?.conditions)).toMatch(/\{\{resolve:secretsmanager:.*FrontDoorBypass.*:SecretString:::\}\}/);
    expect(bypass?.target).toMatch(/BrowserTargets/);
    expect(door?.priority).toBe(16);
    expect(door?.conditions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          Field: "http-header",
          HttpHeaderConfig: expect.objectContaining({ HttpHeaderName: "x-osprey-origin" }),
        }),
        { Field: "http-request-method", HttpRequestMethodConfig: { Values: ["POST"] } },
        { Field: "path-pattern", PathPatternConfig: { Values: ["/"] } },
      ]),
    );
    expect(door?.target).toMatch(/FrontDoorTargets/);
  });

  it("reads only its own secrets and invokes only the scaler", () => {
    const policies = resources("edge", "AWS::IAM::Policy").filter(([id]) => id.startsWith("FrontDoor"));
    expect(policies).toHaveLength(1);
    const statements =
      (policies[0]?.[1].Properties?.PolicyDocument as { Statement: Array<Record<string, unknown>> } | undefined)?.Statement ?? [];
    const doc = JSON.stringify(statements);
    expect(doc).toContain("DatabaseUrl");
    expect(doc).toContain("FrontDoorBypass");
    expect(doc).not.toMatch(/VaultKey|RenderSecret|LlmApiKey/);
    const invoke = statements.filter((st) => JSON.stringify(st.Action).includes("lambda:"));
    expect(invoke).toHaveLength(1);
    expect(invoke[0]?.Action).toBe("lambda:InvokeFunction");
    expect(JSON.stringify(invoke[0]?.Resource)).toMatch(/:function:osprey-scaler"/);
    // And no other function may read the bypass secret.
    for (const [id, p] of resources("edge", "AWS::IAM::Policy"))
      if (!id.startsWith("FrontDoor")) expect(JSON.stringify(p.Properties), id).not.toContain("FrontDoorBypass");
  });

  it("the wait is checked against CloudFront's origin timeout and the function's", () => {
    expect(() => propsFromContext(() => undefined, { ...defaultProps, frontDoor: { waitSeconds: 60 } })).toThrow(/waitSeconds/);
    expect(() =>
      propsFromContext(() => undefined, {
        ...defaultProps,
        functions: { ...defaultProps.functions, frontDoor: { memoryMb: 256, timeoutSeconds: 40 } },
      }),
    ).toThrow(/waitSeconds/);
  });
});

describe("every policy", () => {
  it("allows no wildcard action (a Deny of sqs:* / s3:* without TLS is the only '*' there is)", () => {
    const offenders: string[] = [];
    for (const [stack, tpl] of Object.entries(templates)) {
      for (const [id, r] of Object.entries(tpl.toJSON().Resources as Record<string, Resource>)) {
        const docs: unknown[] = [];
        const p = r.Properties ?? {};
        if (p.PolicyDocument) docs.push(p.PolicyDocument);
        for (const inline of (p.Policies as Array<{ PolicyDocument: unknown }> | undefined) ?? [])
          docs.push(inline.PolicyDocument);
        for (const doc of docs)
          for (const st of (doc as { Statement: Array<{ Effect: string; Action: string | string[] }> }).Statement) {
            const actions = Array.isArray(st.Action) ? st.Action : [st.Action];
            if (st.Effect === "Allow" && actions.some((a) => typeof a === "string" && a.includes("*")))
              offenders.push(`${stack}/${id}: ${actions.join(",")}`);
          }
        // Managed policies attached by ARN are AWS's: only the Lambda basic execution role is allowed.
        for (const arn of (p.ManagedPolicyArns as unknown[] | undefined) ?? [])
          expect(JSON.stringify(arn), `${stack}/${id}`).toContain("AWSLambdaBasicExecutionRole");
      }
    }
    expect(offenders).toEqual([]);
  });
});

describe("resource list", () => {
  it("matches the snapshot (type and logical id, sorted, per stack)", () => {
    const list = Object.fromEntries(
      Object.entries(templates).map(([name, tpl]) => [
        name,
        Object.entries(tpl.toJSON().Resources as Record<string, Resource>)
          .map(([id, r]) => `${r.Type} ${id}`)
          .sort(),
      ]),
    );
    expect(list).toMatchSnapshot();
  });
});

describe("settings", () => {
  it("come from one typed object; context keys are read in one place and checked", () => {
    const ctx = (values: Record<string, string>) => propsFromContext((k) => values[k]);
    expect(ctx({}).database).toEqual({ kind: "neon", urlSecretName: "osprey/database-url" });
    expect(ctx({ warmFloor: "0", maxTasks: "5", arch: "x86_64" }).containers).toMatchObject({
      warmFloor: 0,
      maxTasks: 5,
      arch: "x86_64",
    });
    expect(ctx({ database: "rds", dbInstanceClass: "db.t4g.small" }).database).toMatchObject({
      kind: "rds",
      instanceClass: "t4g.small",
      engineMajor: 16,
      natGateways: 1,
      secretName: "osprey/database",
    });
    expect(() => ctx({ database: "rds", dbInstanceClass: "t3.micro" })).toThrow(/Graviton/);
    expect(() => ctx({ database: "rds", natGateways: "3" })).toThrow(/natGateways must be 1 or 2/);
    expect(() => ctx({ database: "mysql" })).toThrow(/neon or rds/);
    expect(() => ctx({ domain: "example.com" })).toThrow(/hostedZoneId and certificateArn/);
    expect(() => ctx({ warmFloor: "30" })).toThrow(/warmFloor/);
    expect(() =>
      ctx({ domain: "example.com", hostedZoneId: "Z1", certificateArn: "arn:aws:acm:eu-west-1:123456789012:certificate/x" }),
    ).toThrow(/us-east-1/);
  });

  it("with a domain: aliases, Route 53 records and OSPREY_PUBLIC_URL on the agent function", () => {
    const app = new App({ outdir: path.join(dir, "cdk.out.domain"), context: APP_CONTEXT });
    const withDomain = buildOsprey(app, {
      ...props(),
      domain: {
        zoneName: "example.com",
        hostedZoneId: "Z123",
        certificateArn: "arn:aws:acm:us-east-1:123456789012:certificate/abc",
      },
    });
    const edge = Template.fromStack(withDomain.edge);
    edge.hasResourceProperties("AWS::CloudFront::Distribution", {
      DistributionConfig: Match.objectLike({ Aliases: ["agent.example.com"] }),
    });
    edge.resourceCountIs("AWS::Route53::RecordSet", 6);
    edge.hasResourceProperties("AWS::Lambda::Function", {
      Handler: "agent.handler",
      Environment: { Variables: Match.objectLike({ OSPREY_PUBLIC_URL: "https://agent.example.com" }) },
    });
    Template.fromStack(withDomain.network).hasResourceProperties("AWS::CloudFront::Distribution", {
      DistributionConfig: Match.objectLike({ Aliases: ["browser.example.com"] }),
    });
  });
});
