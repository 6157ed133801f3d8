import path from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../../../functions/config/config.ts";
import type { Db } from "../../../functions/db/db.ts";
import { type ImportProgress, importJsonlFile } from "../../../functions/search/local/import-jsonl.ts";
import { createLocalIndex } from "../../../functions/search/local/local-index.ts";
import { UsageError } from "../format.ts";

type Out = (line: string) => void;

export interface IndexCommandIo {
  out: Out;
  /** Progress and per-line problems (stderr). */
  err: Out;
  /** What relative file arguments are resolved against: the CLI's own directory, also when the server runs the command. */
  cwd?: string;
}

/**
 * `osprey index <import|add|count|remove>`; `add` crawls through the fetch pipeline (index-add.ts).
 * Resolves with the exit code (`add` fails with 1 when it indexed nothing).
 */
export async function indexCommand(db: Db, args: string[], io: IndexCommandIo): Promise<number> {
  const [sub, ...rest] = args;
  const index = createLocalIndex({ db });
  if (sub === "import") {
    await importCommand(index.writer, rest, io);
    await index.maintain();
    return 0;
  }
  if (sub === "add") {
    // The crawl builds the fetch pipeline, so it loads only when asked for.
    const { indexAddCommand } = await import("./index-add.ts");
    const { exitCode } = await indexAddCommand(
      { config: loadConfig(), db, writer: index.writer, out: io.out, progress: io.err, cwd: io.cwd ?? process.cwd() },
      rest,
    );
    return exitCode;
  }
  if (sub === "count") {
    const { values } = parseArgs({ args: rest, strict: true, options: { json: { type: "boolean", default: false } } });
    const count = await index.writer.count();
    io.out(values.json ? JSON.stringify({ documents: count }) : `${count} documents in the local index.`);
    return 0;
  }
  if (sub === "remove") {
    const { positionals } = parseArgs({ args: rest, strict: true, allowPositionals: true });
    if (positionals.length !== 1) throw new UsageError("index remove takes one URL");
    const url = positionals[0] as string;
    if (!(await index.writer.remove(url))) throw new UsageError(`${url} is not in the local index`);
    io.out(`Removed ${url}.`);
    return 0;
  }
  throw new UsageError(sub ? `unknown index command "${sub}"` : "index needs a command");
}

const PROGRESS_EVERY = 10_000;

async function importCommand(writer: ReturnType<typeof createLocalIndex>["writer"], args: string[], io: IndexCommandIo) {
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: { jsonl: { type: "string" }, json: { type: "boolean", default: false } },
  });
  if (!values.jsonl || positionals.length > 0) throw new UsageError("index import needs --jsonl <file>");
  let next = PROGRESS_EVERY;
  const rate = (p: ImportProgress) => (p.elapsedMs > 0 ? ((p.inserted + p.updated + p.unchanged) * 1000) / p.elapsedMs : 0);
  const summary = await importJsonlFile(writer, path.resolve(io.cwd ?? process.cwd(), values.jsonl), {
    maxErrors: 1000,
    onProgress: (p) => {
      if (p.lines < next) return;
      next = (Math.floor(p.lines / PROGRESS_EVERY) + 1) * PROGRESS_EVERY;
      io.err(
        `${p.lines} lines: ${p.inserted} inserted, ${p.updated} updated, ${p.unchanged} unchanged, ${p.rejected} rejected (${rate(p).toFixed(0)} docs/s)`,
      );
    },
  });
  for (const e of summary.errors) io.err(`line ${e.line}: ${e.reason}`);
  if (summary.rejected > summary.errors.length) io.err(`... and ${summary.rejected - summary.errors.length} more rejected lines`);
  const result = {
    lines: summary.lines,
    inserted: summary.inserted,
    updated: summary.updated,
    unchanged: summary.unchanged,
    rejected: summary.rejected,
    seconds: Number((summary.elapsedMs / 1000).toFixed(3)),
    docs_per_second: Math.round(summary.docsPerSecond),
  };
  if (values.json) io.out(JSON.stringify(result));
  else {
    io.out(
      `Imported ${values.jsonl}: ${result.inserted} inserted, ${result.updated} updated, ${result.unchanged} unchanged, ` +
        `${result.rejected} rejected in ${result.seconds} s (${result.docs_per_second} docs/s).`,
    );
  }
}
