import { Duration, Fn, Stack, type StackProps } from "aws-cdk-lib";
import { Certificate } from "aws-cdk-lib/aws-certificatemanager";
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  PriceClass,
  ViewerProtocolPolicy,
} from "aws-cdk-lib/aws-cloudfront";
import { LoadBalancerV2Origin } from "aws-cdk-lib/aws-cloudfront-origins";
import { GatewayVpcEndpointAwsService, Peer, Port, SecurityGroup, SubnetType, Vpc } from "aws-cdk-lib/aws-ec2";
import {
  type ApplicationListener,
  ApplicationLoadBalancer,
  ApplicationProtocol,
  ApplicationTargetGroup,
  ListenerAction,
  ListenerCondition,
  TargetType,
} from "aws-cdk-lib/aws-elasticloadbalancingv2";
import type { Construct } from "constructs";
import { type OspreyDeployProps, PORTS } from "../config.ts";
import { hostRecords, hostUrl } from "./hosts.ts";

/** The header CloudFront adds and the load balancer requires: requests that skip CloudFront get 403. */
export const ORIGIN_HEADER = "x-osprey-origin";
/** The render endpoint's path on the containers (containers/worker/render-endpoint.ts RENDER_PATH). */
export const RENDER_PATH = "/internal/render";

/**
 * The network and the browser host: a VPC with public subnets (the containers get public
 * addresses to browse the web, so no NAT gateway is paid for; their security group admits the load
 * balancer only), the Application Load Balancer in front of the containers' browser API (websockets
 * for CDP; idle timeout at its 4000 s maximum) and render endpoint, and the CloudFront distribution
 * that is {browser_url}. The containers stack adds its service to the two target groups.
 *
 * With RDS (`-c database=rds`) the VPC gains two subnet groups, added after the public one so its
 * address ranges stay as they were: isolated subnets for the database (no route out at all) and
 * private subnets for the functions, which must reach the database and also the web (fetch, search,
 * SQS, Secrets Manager), hence a NAT gateway (about $33 a month each plus $0.045 per GB, README);
 * and the functions' security group, which the database admits.
 */
export class NetworkStack extends Stack {
  readonly vpc: Vpc;
  /** The functions' security group (RDS only: the database admits it); null with Neon (functions outside the VPC). */
  readonly functionsSecurityGroup: SecurityGroup | null;
  readonly loadBalancerSecurityGroup: SecurityGroup;
  readonly loadBalancer: ApplicationLoadBalancer;
  /** The HTTP listener; the edge stack adds the front door's two rules (priorities 14 and 16, between Render and Browser). */
  readonly listener: ApplicationListener;
  /** The value of ORIGIN_HEADER that CloudFront sends (the stack's GUID). */
  readonly originSecret: string;
  readonly browserTargets: ApplicationTargetGroup;
  readonly renderTargets: ApplicationTargetGroup;
  readonly browserHost: Distribution;
  /** https://… of the browser surface (OSPREY_BROWSER_PUBLIC_URL). */
  readonly browserUrl: string;
  /** The render endpoint through the browser host (the fetch function's OSPREY_RENDERER_URL). */
  readonly rendererUrl: string;

  constructor(scope: Construct, id: string, deploy: OspreyDeployProps, props: StackProps = {}) {
    super(scope, id, { ...props, description: "Osprey: VPC, load balancer and the browser host" });
    const rds = deploy.database.kind === "rds" ? deploy.database : null;
    this.vpc = new Vpc(this, "Vpc", {
      maxAzs: 2,
      natGateways: rds ? rds.natGateways : 0,
      subnetConfiguration: [
        { name: "public", subnetType: SubnetType.PUBLIC, cidrMask: 22 },
        ...(rds
          ? [
              { name: "functions", subnetType: SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 22 },
              { name: "database", subnetType: SubnetType.PRIVATE_ISOLATED, cidrMask: 24 },
            ]
          : []),
      ],
      // S3 through the gateway endpoint (free): no NAT data charge for artifacts and cache bodies.
      gatewayEndpoints: { S3: { service: GatewayVpcEndpointAwsService.S3 } },
    });
    this.functionsSecurityGroup = rds
      ? new SecurityGroup(this, "Functions", {
          vpc: this.vpc,
          description: "Osprey functions in the VPC (RDS): out to the database and, through the NAT gateway, the web",
          allowAllOutbound: true,
        })
      : null;
    this.loadBalancerSecurityGroup = new SecurityGroup(this, "LoadBalancer", {
      vpc: this.vpc,
      description: "Osprey load balancer: HTTP from CloudFront (the origin header keeps direct callers out)",
      allowAllOutbound: true,
    });
    this.loadBalancerSecurityGroup.addIngressRule(Peer.anyIpv4(), Port.tcp(80), "CloudFront to the load balancer");
    const alb = new ApplicationLoadBalancer(this, "Balancer", {
      vpc: this.vpc,
      internetFacing: true,
      securityGroup: this.loadBalancerSecurityGroup,
      // A CDP websocket may sit quiet between commands; sessions end on their own inactivity timeout.
      idleTimeout: Duration.seconds(4000),
      dropInvalidHeaderFields: true,
    });
    // The stack's own GUID: known to the account, not guessable from outside, stable across updates.
    const originSecret = Fn.select(2, Fn.split("/", this.stackId));
    this.loadBalancer = alb;
    this.originSecret = originSecret;
    const listener = alb.addListener("Http", {
      port: 80,
      protocol: ApplicationProtocol.HTTP,
      open: false,
      defaultAction: ListenerAction.fixedResponse(403, { contentType: "text/plain", messageBody: "Forbidden" }),
    });
    this.listener = listener;
    const targets = (cid: string, port: number) =>
      new ApplicationTargetGroup(this, cid, {
        vpc: this.vpc,
        targetType: TargetType.IP,
        protocol: ApplicationProtocol.HTTP,
        port,
        // The worker's /healthz: 503 while it drains, so the balancer stops sending it new sessions.
        healthCheck: {
          path: "/healthz",
          port: String(PORTS.health),
          healthyHttpCodes: "200",
          interval: Duration.seconds(15),
          healthyThresholdCount: 2,
          unhealthyThresholdCount: 2,
        },
        deregistrationDelay: Duration.seconds(30),
      });
    this.browserTargets = targets("BrowserTargets", PORTS.browser);
    this.renderTargets = targets("RenderTargets", PORTS.render);
    listener.addAction("Render", {
      priority: 10,
      conditions: [ListenerCondition.httpHeader(ORIGIN_HEADER, [originSecret]), ListenerCondition.pathPatterns([RENDER_PATH])],
      action: ListenerAction.forward([this.renderTargets]),
    });
    // Priorities 14 (the front door's bypass) and 16 (POST / to the front door) are the edge stack's.
    listener.addAction("Browser", {
      priority: 20,
      conditions: [ListenerCondition.httpHeader(ORIGIN_HEADER, [originSecret])],
      action: ListenerAction.forward([this.browserTargets]),
    });
    const domain = deploy.domain;
    this.browserHost = new Distribution(this, "BrowserHost", {
      comment: `${deploy.name} browser_url`,
      priceClass: PriceClass.PRICE_CLASS_100,
      ...(domain
        ? {
            domainNames: [`${deploy.hosts.browser}.${domain.zoneName}`],
            certificate: Certificate.fromCertificateArn(this, "Certificate", domain.certificateArn),
          }
        : {}),
      defaultBehavior: {
        origin: new LoadBalancerV2Origin(alb, {
          protocolPolicy: OriginProtocolPolicy.HTTP_ONLY,
          readTimeout: Duration.seconds(deploy.originReadTimeoutSeconds),
          customHeaders: { [ORIGIN_HEADER]: originSecret },
        }),
        allowedMethods: AllowedMethods.ALLOW_ALL,
        cachePolicy: CachePolicy.CACHING_DISABLED,
        originRequestPolicy: OriginRequestPolicy.ALL_VIEWER,
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        compress: false,
      },
    });
    hostRecords(this, deploy, "browser", this.browserHost);
    this.browserUrl = hostUrl(deploy, "browser", this.browserHost);
    this.rendererUrl = `${this.browserUrl}${RENDER_PATH}`;
  }
}
