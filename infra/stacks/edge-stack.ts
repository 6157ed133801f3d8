import { Duration, Stack, type StackProps } from "aws-cdk-lib";
import { Certificate } from "aws-cdk-lib/aws-certificatemanager";
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  OriginRequestPolicy,
  PriceClass,
  ViewerProtocolPolicy,
} from "aws-cdk-lib/aws-cloudfront";
import { FunctionUrlOrigin } from "aws-cdk-lib/aws-cloudfront-origins";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import { Architecture, FunctionUrlAuthType, InvokeMode, Function as LambdaFunction, Runtime } from "aws-cdk-lib/aws-lambda";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import type { IBucket } from "aws-cdk-lib/aws-s3";
import type { IQueue } from "aws-cdk-lib/aws-sqs";
import type { Construct } from "constructs";
import { type OspreyDeployProps, S3_PREFIXES, type Surface } from "../config.ts";
import { functionEnvironment, functionSecrets, type SharedResources } from "../environment.ts";
import { functionCode } from "../function-code.ts";
import { FrontDoor, type FrontDoorInputs } from "./front-door.ts";
import { hostRecords, hostUrl } from "./hosts.ts";
import { type FunctionPlacement, vpcSettings } from "./placement.ts";

export const EDGE_SURFACES: readonly Surface[] = ["agent", "fetch", "search"];

export interface EdgeStackInputs {
  shared: SharedResources;
  queue: IQueue;
  bucket: IBucket;
  rendererUrl: string;
  /** The scaler's name (the containers stack creates it; named, so that no stack cycle is needed to invoke it). */
  scalerFunctionName: string;
  /** RDS only: the functions run in the VPC's private subnets (out through the NAT gateway) with this group. */
  placement: FunctionPlacement | null;
  /** The browser sessions' front door on the network stack's load balancer (front-door.ts). */
  browserFrontDoor: Pick<FrontDoorInputs, "listener" | "browserTargets" | "loadBalancerDnsName" | "originSecret">;
}

/**
 * {agent_url}, {fetch_url} and {search_url}: one Lambda per surface from its edge bundle (ARM64,
 * Node 22, the bundles' target), each behind a function URL in RESPONSE_STREAM mode (long answers
 * stream past API Gateway's 29 s cap) and a CloudFront distribution that is the surface's host.
 * The browser surface is not a function here: its CDP websockets outlive any invocation, so
 * {browser_url} is the containers' load balancer (network-stack.ts); only its session creation,
 * `POST /`, comes here, to the front door (front-door.ts), which can start a container from zero.
 */
export class EdgeStack extends Stack {
  readonly functions: Record<Surface, LambdaFunction>;
  readonly hosts: Record<Surface, Distribution>;
  readonly urls: Record<Surface, string>;
  readonly frontDoor: FrontDoor;

  constructor(scope: Construct, id: string, deploy: OspreyDeployProps, inputs: EdgeStackInputs, props: StackProps = {}) {
    super(scope, id, { ...props, description: "Osprey: the agent, fetch and search functions and their hosts" });
    const { shared, bucket } = inputs;
    const agentUrl = deploy.domain ? `https://${deploy.hosts.agent}.${deploy.domain.zoneName}` : null;
    const certificate = deploy.domain ? Certificate.fromCertificateArn(this, "Certificate", deploy.domain.certificateArn) : null;
    const fns = {} as Record<Surface, LambdaFunction>;
    const hosts = {} as Record<Surface, Distribution>;
    const urls = {} as Record<Surface, string>;
    for (const surface of EDGE_SURFACES) {
      const size = deploy.functions[surface];
      const label = surface[0]?.toUpperCase() + surface.slice(1);
      const fn = new LambdaFunction(this, `${label}Function`, {
        description: `Osprey ${surface} surface (dist/functions/${surface}.mjs)`,
        runtime: Runtime.NODEJS_22_X,
        architecture: Architecture.ARM_64,
        handler: `${surface}.handler`,
        code: functionCode(deploy.paths.functionsDir, surface),
        memorySize: size.memoryMb,
        timeout: Duration.seconds(size.timeoutSeconds),
        environment: functionEnvironment(surface, deploy, shared, {
          agentUrl,
          rendererUrl: inputs.rendererUrl,
          scalerFunctionName: inputs.scalerFunctionName,
        }),
        logGroup: new LogGroup(this, `${label}Logs`, { retention: RetentionDays.ONE_MONTH }),
        ...vpcSettings(inputs.placement),
      });
      for (const [, secret] of functionSecrets(surface, shared)) secret?.grantRead(fn);
      fns[surface] = fn;
      const url = fn.addFunctionUrl({ authType: FunctionUrlAuthType.NONE, invokeMode: InvokeMode.RESPONSE_STREAM });
      const host = new Distribution(this, `${label}Host`, {
        comment: `${deploy.name} ${surface}_url`,
        priceClass: PriceClass.PRICE_CLASS_100,
        ...(deploy.domain && certificate
          ? { domainNames: [`${deploy.hosts[surface]}.${deploy.domain.zoneName}`], certificate }
          : {}),
        defaultBehavior: {
          origin: new FunctionUrlOrigin(url, { readTimeout: Duration.seconds(deploy.originReadTimeoutSeconds) }),
          allowedMethods: AllowedMethods.ALLOW_ALL,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          // A function URL answers only to its own host name.
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
          compress: true,
        },
      });
      hostRecords(this, deploy, surface, host);
      hosts[surface] = host;
      urls[surface] = hostUrl(deploy, surface, host);
    }
    // agent: inserts runs and sends their ids; reads step artifacts, live frames and recordings.
    inputs.queue.grantSendMessages(fns.agent);
    fns.agent.addToRolePolicy(
      new PolicyStatement({ actions: ["s3:GetObject"], resources: [bucket.arnForObjects(`${S3_PREFIXES.runs}/*`)] }),
    );
    // The fast path: the agent nudges the scaler after it enqueues a run (an asynchronous invoke).
    fns.agent.addToRolePolicy(
      new PolicyStatement({
        actions: ["lambda:InvokeFunction"],
        resources: [`arn:${this.partition}:lambda:${this.region}:${this.account}:function:${inputs.scalerFunctionName}`],
      }),
    );
    // fetch: its cache bodies, read, written and purged, under fetch-cache/ only.
    fns.fetch.addToRolePolicy(
      new PolicyStatement({
        actions: ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"],
        resources: [bucket.arnForObjects(`${S3_PREFIXES.fetchCache}/*`)],
      }),
    );
    this.frontDoor = new FrontDoor(this, "FrontDoor", deploy, {
      ...inputs.browserFrontDoor,
      shared,
      scalerFunctionName: inputs.scalerFunctionName,
      placement: inputs.placement,
    });
    this.functions = fns;
    this.hosts = hosts;
    this.urls = urls;
  }
}
