import { Duration, Stack } from "aws-cdk-lib";
import {
  type ApplicationListener,
  ApplicationListenerRule,
  ApplicationTargetGroup,
  ListenerAction,
  ListenerCondition,
} from "aws-cdk-lib/aws-elasticloadbalancingv2";
import { LambdaTarget } from "aws-cdk-lib/aws-elasticloadbalancingv2-targets";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import { Architecture, Function as LambdaFunction, Runtime } from "aws-cdk-lib/aws-lambda";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import { Secret } from "aws-cdk-lib/aws-secretsmanager";
import { Construct } from "constructs";
import { BYPASS_HEADER } from "../../functions/edge/front-door-app.ts";
import type { OspreyDeployProps } from "../config.ts";
import { frontDoorEnvironment, functionSecrets, type SharedResources } from "../environment.ts";
import { functionCode } from "../function-code.ts";
import { ORIGIN_HEADER } from "./network-stack.ts";
import { type FunctionPlacement, vpcSettings } from "./placement.ts";

/** The listener rules' priorities: after Render (10), before the containers' catch-all Browser (20). */
export const FRONT_DOOR_PRIORITIES = { bypass: 14, frontDoor: 16 } as const;

export interface FrontDoorInputs {
  shared: SharedResources;
  listener: ApplicationListener;
  browserTargets: ApplicationTargetGroup;
  /** The load balancer's DNS name: the front door reaches the containers the way the request came. */
  loadBalancerDnsName: string;
  originSecret: string;
  scalerFunctionName: string;
  placement: FunctionPlacement | null;
}

/**
 * The browser sessions' front door (functions/edge/front-door.ts; infra/README.md "Sessions from
 * zero"): a small function behind its own Lambda target group, and two listener rules on the load
 * balancer, in priority order after the render rule:
 *   14: the bypass header (a generated secret) → the containers: the front door's own probes and forwards;
 *   16: POST / with CloudFront's origin header → the front door (session creation only);
 *   20: (network stack) the origin header → the containers: CDP websockets, live view, GET/DELETE, usage.
 * It lives in the edge stack because it reads API keys (the database secret, data stack); the
 * listener it adds to is the network stack's, which comes first.
 */
export class FrontDoor extends Construct {
  readonly function: LambdaFunction;
  readonly bypassSecret: Secret;

  constructor(scope: Construct, id: string, deploy: OspreyDeployProps, inputs: FrontDoorInputs) {
    super(scope, id);
    // Letters and digits only: an ALB header condition treats * and ? as wildcards.
    this.bypassSecret = new Secret(this, "Bypass", {
      description: `${deploy.name}: the header value that lets the front door past itself to the browser containers`,
      generateSecretString: { passwordLength: 48, excludePunctuation: true, includeSpace: false },
    });
    const size = deploy.functions.frontDoor;
    this.function = new LambdaFunction(this, "Function", {
      description: "Osprey browser front door: POST {browser_url} waits for a container (nudging the scaler) then forwards",
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      handler: "front-door.handler",
      code: functionCode(deploy.paths.functionsDir, "front-door"),
      memorySize: size.memoryMb,
      timeout: Duration.seconds(size.timeoutSeconds),
      environment: frontDoorEnvironment(deploy, inputs.shared, {
        origin: `http://${inputs.loadBalancerDnsName}`,
        bypassSecret: this.bypassSecret,
        scalerFunctionName: inputs.scalerFunctionName,
      }),
      logGroup: new LogGroup(this, "Logs", { retention: RetentionDays.ONE_MONTH }),
      ...vpcSettings(inputs.placement),
    });
    for (const [, secret] of functionSecrets("front-door", inputs.shared)) secret?.grantRead(this.function);
    this.bypassSecret.grantRead(this.function);
    // Nudges the scaler (an asynchronous invoke), and nothing else.
    const stack = Stack.of(this);
    this.function.addToRolePolicy(
      new PolicyStatement({
        actions: ["lambda:InvokeFunction"],
        resources: [`arn:${stack.partition}:lambda:${stack.region}:${stack.account}:function:${inputs.scalerFunctionName}`],
      }),
    );
    // The value is resolved by CloudFormation at deploy ({{resolve:secretsmanager:…}}), never written in the template.
    const bypassValue = this.bypassSecret.secretValue.unsafeUnwrap();
    new ApplicationListenerRule(this, "BypassRule", {
      listener: inputs.listener,
      priority: FRONT_DOOR_PRIORITIES.bypass,
      conditions: [ListenerCondition.httpHeader(BYPASS_HEADER, [bypassValue])],
      action: ListenerAction.forward([inputs.browserTargets]),
    });
    new ApplicationListenerRule(this, "SessionRule", {
      listener: inputs.listener,
      priority: FRONT_DOOR_PRIORITIES.frontDoor,
      conditions: [
        ListenerCondition.httpHeader(ORIGIN_HEADER, [inputs.originSecret]),
        ListenerCondition.httpRequestMethods(["POST"]),
        ListenerCondition.pathPatterns(["/"]),
      ],
      // A Lambda target group (LambdaTarget also lets elasticloadbalancing.amazonaws.com invoke it).
      action: ListenerAction.forward([
        new ApplicationTargetGroup(this, "Targets", { targets: [new LambdaTarget(this.function)] }),
      ]),
    });
  }
}
