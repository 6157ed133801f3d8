/** Plain-text tables for the CLI: columns padded to their widest cell. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(headers), ...rows.map(line)].join("\n");
}

export const isoOrDash = (d: Date | null | undefined): string => (d ? d.toISOString() : "-");

export class UsageError extends Error {
  override name = "UsageError";
}

/** A non-negative integer option, or "default" to clear a custom value (null). */
export function parseLimit(name: string, value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === "default") return null;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 1_000_000) {
    throw new UsageError(`${name} must be an integer from 1 to 1000000, or "default"`);
  }
  return Number(value);
}

export function parseInteger(name: string, value: string, { allowNegative = false } = {}): number {
  const re = allowNegative ? /^-?\d+$/ : /^\d+$/;
  if (!re.test(value) || !Number.isSafeInteger(Number(value))) throw new UsageError(`${name} must be an integer`);
  return Number(value);
}

export function splitList(values: string[]): string[] {
  return values
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter(Boolean);
}
