/** Vitest's sequencer with the order of `order.ts` (longest files first, from recorded durations). */
import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { longestFirst } from "./order.ts";

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const records = files.map((spec) => ({
      spec,
      file: path.relative(spec.project.config.root, spec.moduleId).split(path.sep).join("/"),
      cached: this.ctx.cache.getTestSpecificationResult(spec),
    }));
    return longestFirst(records).map((r) => r.spec);
  }
}
