/**
 * A fetch Response's body as text, refused past `max` bytes (declared by Content-Length or counted
 * as it streams) without reading the rest: for the services an operator configures (vault
 * providers, search upstreams, the model endpoint), where a broken or hostile one answering
 * gigabytes must cost an error, not this process's memory. (Fetched pages use safe-http.ts, which
 * keeps the first bytes instead.)
 */
export class BodyTooLarge extends Error {
  override name = "BodyTooLarge";
  readonly max: number;
  constructor(max: number) {
    super(`the answer is larger than ${max} bytes`);
    this.max = max;
  }
}

export async function readCapped(res: Response, max: number): Promise<string> {
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > max) {
    await res.body?.cancel().catch(() => {});
    throw new BodyTooLarge(max);
  }
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => {});
      throw new BodyTooLarge(max);
    }
    chunks.push(value);
  }
  // As Response.text() decodes: UTF-8, a byte-order mark dropped.
  return new TextDecoder().decode(Buffer.concat(chunks));
}
