import { type App, CfnOutput, Tags } from "aws-cdk-lib";
import type { OspreyDeployProps } from "./config.ts";
import { ContainersStack, scalerFunctionName } from "./stacks/containers-stack.ts";
import { DataStack } from "./stacks/data-stack.ts";
import { EdgeStack } from "./stacks/edge-stack.ts";
import { NetworkStack } from "./stacks/network-stack.ts";
import { QueueStack } from "./stacks/queue-stack.ts";
import { StorageStack } from "./stacks/storage-stack.ts";

/**
 * The deployment, stack by stack, in dependency order: network (VPC, load balancer, browser host),
 * data (secrets; with RDS, the instance in the network's VPC), queue and storage, edge (functions and their hosts; the fetch function
 * renders through the browser host), containers (the service, which links back to the agent host,
 * and the scaler, which the agent function invokes by name).
 */
export function buildOsprey(app: App, deploy: OspreyDeployProps) {
  const stackProps = deploy.env ? { env: deploy.env } : {};
  const n = deploy.name;
  const network = new NetworkStack(app, `${n}-network`, deploy, stackProps);
  const functionsSecurityGroup = network.functionsSecurityGroup;
  // RDS: the database in the VPC, the functions beside it (Neon: neither in a VPC).
  const placement = functionsSecurityGroup ? { vpc: network.vpc, securityGroup: functionsSecurityGroup } : null;
  const data = new DataStack(
    app,
    `${n}-data`,
    deploy,
    placement ? { vpc: network.vpc, functionsSecurityGroup: placement.securityGroup } : null,
    stackProps,
  );
  const queue = new QueueStack(app, `${n}-queue`, deploy, stackProps);
  const storage = new StorageStack(app, `${n}-storage`, deploy, stackProps);
  const shared = {
    queueUrl: queue.queue.queueUrl,
    deadLetterQueueUrl: queue.deadLetterQueue.queueUrl,
    bucketName: storage.bucket.bucketName,
    secrets: {
      databaseUrl: data.databaseUrl,
      vaultKey: data.vaultKey,
      renderSecret: data.renderSecret,
      llmApiKey: data.llmApiKey,
    },
  };
  const edge = new EdgeStack(
    app,
    `${n}-edge`,
    deploy,
    {
      shared,
      queue: queue.queue,
      bucket: storage.bucket,
      rendererUrl: network.rendererUrl,
      scalerFunctionName: scalerFunctionName(deploy),
      placement,
      browserFrontDoor: {
        listener: network.listener,
        browserTargets: network.browserTargets,
        loadBalancerDnsName: network.loadBalancer.loadBalancerDnsName,
        originSecret: network.originSecret,
      },
    },
    stackProps,
  );
  const containers = new ContainersStack(
    app,
    `${n}-containers`,
    deploy,
    {
      shared,
      vpc: network.vpc,
      loadBalancerSecurityGroup: network.loadBalancerSecurityGroup,
      browserTargets: network.browserTargets,
      renderTargets: network.renderTargets,
      queue: queue.queue,
      deadLetterQueue: queue.deadLetterQueue,
      bucket: storage.bucket,
      agentUrl: edge.urls.agent,
      browserUrl: network.browserUrl,
      database: data.rds && placement ? { securityGroup: data.rds.securityGroup, placement } : null,
    },
    stackProps,
  );
  new CfnOutput(edge, "AgentUrl", { value: edge.urls.agent, description: "{agent_url}" });
  new CfnOutput(edge, "FetchUrl", { value: edge.urls.fetch, description: "{fetch_url}" });
  new CfnOutput(edge, "SearchUrl", { value: edge.urls.search, description: "{search_url}" });
  new CfnOutput(network, "BrowserUrl", { value: network.browserUrl, description: "{browser_url}" });
  if (data.rds) {
    new CfnOutput(data, "DatabaseSecret", {
      value: data.databaseUrl.secretName,
      description: "the RDS credentials (JSON; generated, nothing to put)",
    });
    new CfnOutput(data, "DatabaseEndpoint", {
      value: data.rds.instance.dbInstanceEndpointAddress,
      description: "RDS, reachable from the VPC only",
    });
  } else {
    new CfnOutput(data, "DatabaseUrlSecret", { value: data.databaseUrl.secretName, description: "put the Neon URL here" });
  }
  for (const stack of [data, queue, storage, network, edge, containers]) Tags.of(stack).add("app", n);
  return { data, queue, storage, network, edge, containers };
}
