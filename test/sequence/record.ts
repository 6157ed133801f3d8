/**
 * Records each test file's duration from a Vitest JSON report into `durations.json`, which orders
 * the files of a run without a local cache (`sequencer.ts`). Run after a full suite, e.g.:
 *
 *   npm test -- --reporter=json --outputFile.json=/tmp/report.json
 *   node test/sequence/record.ts /tmp/report.json
 *
 * The figures need not be current to the second: only the order of the long files matters.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");
const report = process.argv[2];
if (!report) {
  process.stderr.write("usage: node test/sequence/record.ts <vitest JSON report>\n");
  process.exit(2);
}
const parsed = JSON.parse(readFileSync(report, "utf8")) as {
  testResults: { name: string; startTime: number; endTime: number }[];
};
const rows = parsed.testResults
  .map((t) => [path.relative(ROOT, t.name).split(path.sep).join("/"), Math.round((t.endTime - t.startTime) / 100) / 10] as const)
  .sort((a, b) => (a[0] < b[0] ? -1 : 1));
const body = rows.map(([file, seconds]) => `  ${JSON.stringify(file)}: ${seconds}`).join(",\n");
writeFileSync(path.join(import.meta.dirname, "durations.json"), `{\n${body}\n}\n`);
process.stdout.write(`recorded ${rows.length} files (${rows.reduce((n, r) => n + r[1], 0).toFixed(0)} s in all)\n`);
