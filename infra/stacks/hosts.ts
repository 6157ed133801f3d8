import type { Distribution } from "aws-cdk-lib/aws-cloudfront";
import { AaaaRecord, ARecord, HostedZone, RecordTarget } from "aws-cdk-lib/aws-route53";
import { CloudFrontTarget } from "aws-cdk-lib/aws-route53-targets";
import type { Construct } from "constructs";
import type { OspreyDeployProps, Surface } from "../config.ts";

/** https://<label>.<zone> with a domain, else the distribution's own https://d….cloudfront.net. */
export function hostUrl(deploy: OspreyDeployProps, surface: Surface | "browser", dist: Distribution): string {
  return deploy.domain ? `https://${deploy.hosts[surface]}.${deploy.domain.zoneName}` : `https://${dist.distributionDomainName}`;
}

/** A and AAAA alias records for the host, when a domain is set. */
export function hostRecords(scope: Construct, deploy: OspreyDeployProps, surface: Surface | "browser", dist: Distribution): void {
  const domain = deploy.domain;
  if (!domain) return;
  const zone = HostedZone.fromHostedZoneAttributes(scope, `Zone-${surface}`, {
    hostedZoneId: domain.hostedZoneId,
    zoneName: domain.zoneName,
  });
  const target = RecordTarget.fromAlias(new CloudFrontTarget(dist));
  new ARecord(scope, `Host-${surface}`, { zone, recordName: deploy.hosts[surface], target });
  new AaaaRecord(scope, `Host6-${surface}`, { zone, recordName: deploy.hosts[surface], target });
}
