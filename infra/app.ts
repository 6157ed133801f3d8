import path from "node:path";
import { fileURLToPath } from "node:url";
import { App } from "aws-cdk-lib";
import { processEnvironment } from "../functions/config/config.ts";
import { APP_CONTEXT, propsFromContext } from "./config.ts";
import { buildOsprey } from "./osprey.ts";

/**
 * The CDK app: `npm run infra:synth` (offline: environment-agnostic stacks unless `-c account=… -c
 * region=…`), `npm run infra:deploy`. Settings come from infra/config.ts's defaults and the context
 * keys it reads (README, "Deploy to AWS").
 */
const outdir = processEnvironment().CDK_OUTDIR ?? path.join(path.dirname(fileURLToPath(import.meta.url)), "cdk.out");
const app = new App({ outdir, context: APP_CONTEXT });
buildOsprey(
  app,
  propsFromContext((key) => app.node.tryGetContext(key)),
);
app.synth();
