import type { ServerResponse } from "node:http";

/**
 * Answers 200 with a JSON body that never ends: `head`, then `chunk` again and again as fast as
 * the client reads, until it goes away. For the stubs of services whose answers must be capped.
 */
export function writeEndlessJson(res: ServerResponse, head: string, chunk: string): void {
  res.writeHead(200, { "content-type": "application/json" });
  res.write(head);
  const more = () => {
    while (!res.destroyed && res.write(chunk)) {}
    if (!res.destroyed) res.once("drain", more);
  };
  res.on("close", () => res.removeAllListeners("drain"));
  more();
}
