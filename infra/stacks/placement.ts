import { type SecurityGroup, SubnetType, type Vpc } from "aws-cdk-lib/aws-ec2";

/** Where a function or task runs with RDS: the VPC and its security group (shared by the edge, front door and containers stacks). */
export interface FunctionPlacement {
  vpc: Vpc;
  securityGroup: SecurityGroup;
}

/** A function's VPC settings: none with Neon (it reaches the web directly), the private subnets with RDS. */
export const vpcSettings = (placement: FunctionPlacement | null) =>
  placement
    ? {
        vpc: placement.vpc,
        vpcSubnets: { subnetType: SubnetType.PRIVATE_WITH_EGRESS },
        securityGroups: [placement.securityGroup],
      }
    : {};
