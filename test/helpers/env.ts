/**
 * Sets environment variables for a test file and returns the function that puts back what was
 * there (a value, or no variable). Test workers run file after file (vitest.config.ts, isolate:
 * false), and test/setup-process.ts fails a file that leaves a setting changed.
 */
export function setEnv(vars: Record<string, string | undefined>): () => void {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  apply(vars);
  return () => apply(saved);
}
