import { describe, expect, it } from "vitest";
import { storedRunRequest } from "../../functions/runs/run-request.schema.ts";

/** The worker reads a run's request back through the schema that accepted it, never by a cast. */
describe("storedRunRequest", () => {
  it("parses a stored request with its defaults and types", () => {
    const req = storedRunRequest({
      id: "run_1",
      request: { url: "https://example.com/", goal: "Find the price", capture_config: { recording: true } },
    });
    expect(req.url).toBe("https://example.com/");
    expect(req.use_vault).toBe(false);
    expect(req.capture_config?.recording).toBe(true);
  });

  it("names the run and the fields when a stored request no longer matches", () => {
    expect(() => storedRunRequest({ id: "run_2", request: { url: "https://example.com/", goal: 5, extra: true } })).toThrow(
      /run run_2 .*goal/,
    );
    expect(() => storedRunRequest({ id: "run_3", request: null })).toThrow(/run run_3/);
  });
});
