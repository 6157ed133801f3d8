import { buildAgentSurface } from "../edge/agent-surface.ts";
import { lambdaHandler } from "../edge/edge-root.ts";

/** The Lambda handler of {agent_url} (see functions/edge/agent-surface.ts); bundled by `npm run build`. */
export const handler = lambdaHandler(buildAgentSurface);
