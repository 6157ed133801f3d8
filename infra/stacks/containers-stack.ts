import { CfnOutput, Duration, Fn, Stack, type StackProps } from "aws-cdk-lib";
import { Metric } from "aws-cdk-lib/aws-cloudwatch";
import { CfnSecurityGroupIngress, Port, SecurityGroup, SubnetType, type Vpc } from "aws-cdk-lib/aws-ec2";
import { Platform } from "aws-cdk-lib/aws-ecr-assets";
import {
  Cluster,
  ContainerImage,
  ContainerInsights,
  CpuArchitecture,
  Secret as EcsSecret,
  FargateService,
  FargateTaskDefinition,
  LogDrivers,
  OperatingSystemFamily,
} from "aws-cdk-lib/aws-ecs";
import type { ApplicationTargetGroup } from "aws-cdk-lib/aws-elasticloadbalancingv2";
import { Rule, Schedule } from "aws-cdk-lib/aws-events";
import { LambdaFunction as LambdaTarget } from "aws-cdk-lib/aws-events-targets";
import { PolicyStatement, Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { Architecture, Function as LambdaFunction, Runtime } from "aws-cdk-lib/aws-lambda";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import type { IBucket } from "aws-cdk-lib/aws-s3";
import type { IQueue } from "aws-cdk-lib/aws-sqs";
import type { Construct } from "constructs";
import { METRIC_NAMESPACE, UTILIZATION_METRIC } from "../../functions/scaler/scaler.ts";
import { type OspreyDeployProps, PORTS, S3_PREFIXES } from "../config.ts";
import {
  containerEnvironment,
  containerSecrets,
  functionSecrets,
  type SharedResources,
  scalerEnvironment,
} from "../environment.ts";
import { functionCode } from "../function-code.ts";
import { POSTGRES_PORT } from "./data-stack.ts";
import { type FunctionPlacement, vpcSettings } from "./placement.ts";

export interface ContainersStackInputs {
  shared: SharedResources;
  vpc: Vpc;
  loadBalancerSecurityGroup: SecurityGroup;
  browserTargets: ApplicationTargetGroup;
  renderTargets: ApplicationTargetGroup;
  queue: IQueue;
  deadLetterQueue: IQueue;
  bucket: IBucket;
  agentUrl: string;
  browserUrl: string;
  /** RDS only: the database's security group (the tasks are added to its ingress) and the functions' placement (the scaler). */
  database: { securityGroup: SecurityGroup; placement: FunctionPlacement } | null;
}

/** `osprey migrate` in the worker's image: the one-off task of MigrateCommand (RDS is reachable from the VPC only). */
export const MIGRATE_COMMAND = [
  "node",
  "--experimental-strip-types",
  "--disable-warning=ExperimentalWarning",
  "containers/cli/osprey.ts",
  "migrate",
];

/** The task's command: the ECS launcher around `osprey worker` (its address, scale-in protection). */
export const WORKER_COMMAND = [
  "node",
  "--experimental-strip-types",
  "--disable-warning=ExperimentalWarning",
  "containers/cloud/ecs-worker.ts",
];

export const scalerFunctionName = (deploy: OspreyDeployProps) => `${deploy.name}-scaler`;
export const clusterName = (deploy: OspreyDeployProps) => deploy.name;
export const serviceName = (deploy: OspreyDeployProps) => `${deploy.name}-browser`;

/**
 * The browser containers: `osprey worker` on Fargate from containers/Dockerfile (runs, browser
 * sessions, the render endpoint, webhooks), the service behind the load balancer's two target
 * groups, and its scaling: the scaler function (fast path, functions/scaler) and target tracking on
 * the utilization metric it publishes (steady path), with the warm floor as the minimum.
 */
export class ContainersStack extends Stack {
  readonly service: FargateService;
  readonly taskDefinition: FargateTaskDefinition;
  readonly scaler: LambdaFunction;

  constructor(scope: Construct, id: string, deploy: OspreyDeployProps, inputs: ContainersStackInputs, props: StackProps = {}) {
    super(scope, id, { ...props, description: "Osprey: the browser containers and their scaling" });
    const c = deploy.containers;
    const { shared, vpc, bucket } = inputs;
    const cluster = new Cluster(this, "Cluster", {
      vpc,
      clusterName: clusterName(deploy),
      containerInsightsV2: ContainerInsights.DISABLED,
    });
    const logs = new LogGroup(this, "WorkerLogs", { retention: c.logRetentionDays as RetentionDays });
    const taskRole = new Role(this, "TaskRole", {
      assumedBy: new ServicePrincipal("ecs-tasks.amazonaws.com"),
      description: "Osprey browser container: its queue, its bucket prefix, its own scale-in protection",
    });
    inputs.queue.grantConsumeMessages(taskRole);
    // The orphan sweep re-sends a lost run's message; the worker copies a bad message to the DLQ.
    inputs.queue.grantSendMessages(taskRole);
    inputs.deadLetterQueue.grantSendMessages(taskRole);
    taskRole.addToPolicy(
      new PolicyStatement({
        actions: ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"],
        resources: [bucket.arnForObjects(`${S3_PREFIXES.runs}/*`)],
      }),
    );
    // ECS task scale-in protection through the ECS agent endpoint (containers/cloud/task-protection.ts).
    taskRole.addToPolicy(
      new PolicyStatement({
        actions: ["ecs:UpdateTaskProtection", "ecs:GetTaskProtection"],
        resources: [`arn:${this.partition}:ecs:${this.region}:${this.account}:task/${clusterName(deploy)}/*`],
      }),
    );
    this.taskDefinition = new FargateTaskDefinition(this, "Worker", {
      cpu: c.cpu,
      memoryLimitMiB: c.memoryMb,
      taskRole,
      runtimePlatform: {
        cpuArchitecture: c.arch === "arm64" ? CpuArchitecture.ARM64 : CpuArchitecture.X86_64,
        operatingSystemFamily: OperatingSystemFamily.LINUX,
      },
    });
    const secrets: Record<string, EcsSecret> = {};
    for (const [name, secret] of Object.entries(containerSecrets(shared))) secrets[name] = EcsSecret.fromSecretsManager(secret);
    this.taskDefinition.addContainer("worker", {
      // Built from the repository root with containers/Dockerfile; synth only hashes the context
      // (.dockerignore keeps it to package*.json, schema/, functions/ and containers/). Docker runs at deploy.
      image: ContainerImage.fromAsset(deploy.paths.repoRoot, {
        file: "containers/Dockerfile",
        platform: c.arch === "arm64" ? Platform.LINUX_ARM64 : Platform.LINUX_AMD64,
      }),
      command: WORKER_COMMAND,
      environment: containerEnvironment(deploy, shared, {
        agentUrl: inputs.agentUrl,
        browserUrl: inputs.browserUrl,
        region: this.region,
      }),
      secrets,
      logging: LogDrivers.awsLogs({ logGroup: logs, streamPrefix: "worker" }),
      // Fargate's maximum: SIGTERM, then the worker drains (OSPREY_SHUTDOWN_TIMEOUT_MS 110 s) before SIGKILL.
      stopTimeout: Duration.seconds(120),
      portMappings: [{ containerPort: PORTS.browser }, { containerPort: PORTS.render }, { containerPort: PORTS.health }],
      // The Dockerfile's HEALTHCHECK, which ECS does not read from the image.
      healthCheck: {
        command: [
          "CMD",
          "node",
          "-e",
          "fetch('http://127.0.0.1:'+process.env.OSPREY_HEALTH_PORT+'/healthz',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))",
        ],
        interval: Duration.seconds(30),
        timeout: Duration.seconds(5),
        startPeriod: Duration.seconds(60),
        retries: 3,
      },
    });
    const taskSecurityGroup = new SecurityGroup(this, "Tasks", {
      vpc,
      description: "Osprey browser containers: the load balancer in, each other on the browser port (CDP relays)",
      allowAllOutbound: true,
    });
    for (const port of [PORTS.browser, PORTS.render, PORTS.health])
      taskSecurityGroup.addIngressRule(inputs.loadBalancerSecurityGroup, Port.tcp(port), `load balancer to ${port}`);
    taskSecurityGroup.addIngressRule(taskSecurityGroup, Port.tcp(PORTS.browser), "a container relays CDP to the holder");
    if (inputs.database) {
      // Here rather than in the data stack, which the containers stack depends on (no cycle).
      new CfnSecurityGroupIngress(this, "TasksToDatabase", {
        groupId: inputs.database.securityGroup.securityGroupId,
        sourceSecurityGroupId: taskSecurityGroup.securityGroupId,
        ipProtocol: "tcp",
        fromPort: POSTGRES_PORT,
        toPort: POSTGRES_PORT,
        description: "browser containers to Postgres",
      });
    }
    this.service = new FargateService(this, "Service", {
      cluster,
      serviceName: serviceName(deploy),
      taskDefinition: this.taskDefinition,
      // No desiredCount: CloudFormation would reset it on every deploy, under the scaler's feet.
      assignPublicIp: true,
      vpcSubnets: { subnetType: SubnetType.PUBLIC },
      securityGroups: [taskSecurityGroup],
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
      circuitBreaker: { rollback: true },
      enableExecuteCommand: false,
    });
    this.service
      .loadBalancerTarget({ containerName: "worker", containerPort: PORTS.browser })
      .attachToApplicationTargetGroup(inputs.browserTargets);
    this.service
      .loadBalancerTarget({ containerName: "worker", containerPort: PORTS.render })
      .attachToApplicationTargetGroup(inputs.renderTargets);

    // Steady path: target tracking on the scaler's metric; the warm floor is its minimum.
    const scaling = this.service.autoScaleTaskCount({ minCapacity: c.warmFloor, maxCapacity: c.maxTasks });
    scaling.scaleToTrackCustomMetric("Utilization", {
      metric: new Metric({
        namespace: METRIC_NAMESPACE,
        metricName: UTILIZATION_METRIC,
        dimensionsMap: { ServiceName: serviceName(deploy) },
        statistic: "Average",
        period: Duration.minutes(1),
      }),
      targetValue: c.targetUtilizationPercent,
      scaleInCooldown: Duration.seconds(c.scaleInCooldownSeconds),
      scaleOutCooldown: Duration.seconds(60),
    });

    // Fast path: the scaler function, nudged by the agent function and run every minute.
    this.scaler = new LambdaFunction(this, "Scaler", {
      functionName: scalerFunctionName(deploy),
      description: "Osprey scaler: raises the browser service's desired count when runs or sessions outgrow it",
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      handler: "scaler.handler",
      code: functionCode(deploy.paths.functionsDir, "scaler"),
      memorySize: deploy.functions.scaler.memoryMb,
      timeout: Duration.seconds(deploy.functions.scaler.timeoutSeconds),
      ...(deploy.scaler.reservedConcurrency > 0 ? { reservedConcurrentExecutions: deploy.scaler.reservedConcurrency } : {}),
      environment: scalerEnvironment(deploy, shared, {
        clusterName: clusterName(deploy),
        serviceName: serviceName(deploy),
      }),
      logGroup: new LogGroup(this, "ScalerLogs", { retention: RetentionDays.ONE_MONTH }),
      // It counts open sessions in the database: in the VPC with RDS, as the edge functions.
      ...vpcSettings(inputs.database?.placement ?? null),
    });
    for (const [, secret] of functionSecrets("scaler", shared)) secret?.grantRead(this.scaler);
    this.scaler.addToRolePolicy(
      new PolicyStatement({ actions: ["ecs:DescribeServices", "ecs:UpdateService"], resources: [this.service.serviceArn] }),
    );
    this.scaler.addToRolePolicy(new PolicyStatement({ actions: ["sqs:GetQueueAttributes"], resources: [inputs.queue.queueArn] }));
    // Migrations on demand: a one-off task of the worker's definition running `osprey migrate`, in
    // the service's subnets and security group (the only way in to RDS; for Neon, a workstation
    // can run it too). README, "Run a migration".
    const subnets = vpc.selectSubnets({ subnetType: SubnetType.PUBLIC }).subnetIds;
    new CfnOutput(this, "MigrateCommand", {
      description: "runs osprey migrate as a one-off task; then: aws ecs wait tasks-stopped --cluster … --tasks <taskArn>",
      value: Fn.join("", [
        `aws ecs run-task --cluster ${clusterName(deploy)} --launch-type FARGATE --started-by osprey-migrate --task-definition `,
        this.taskDefinition.taskDefinitionArn,
        " --network-configuration 'awsvpcConfiguration={subnets=[",
        Fn.join(",", subnets),
        "],securityGroups=[",
        taskSecurityGroup.securityGroupId,
        "],assignPublicIp=ENABLED}' --overrides '",
        JSON.stringify({ containerOverrides: [{ name: "worker", command: MIGRATE_COMMAND }] }),
        "' --query 'tasks[0].taskArn' --output text",
      ]),
    });
    new Rule(this, "ScalerSchedule", {
      description: "Osprey scaler: one pass a minute (the utilization metric; a lost nudge caught up)",
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [new LambdaTarget(this.scaler, { retryAttempts: 0 })],
    });
  }
}
