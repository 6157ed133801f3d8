import { describe, expect, it } from "vitest";
import { agentTools, describeAction, parseToolCall, READ_ONLY_ACTIONS } from "../../containers/agent/tools.ts";

/** The fill_credential tool as the model sees it and as its calls are read. */

const parse = (args: unknown) => parseToolCall({ id: "c1", name: "fill_credential", arguments: args });

describe("fill_credential tool", () => {
  it("is offered only when the run has credentials, right after type", () => {
    const names = (opts?: { credentials?: boolean }) => agentTools(undefined, opts).map((t) => t.name);
    expect(names()).not.toContain("fill_credential");
    expect(names({ credentials: false })).toEqual(names());
    const withCreds = names({ credentials: true });
    expect(withCreds.indexOf("fill_credential")).toBe(withCreds.indexOf("type") + 1);
    expect(withCreds.filter((n) => n !== "fill_credential")).toEqual(names());
    const tool = agentTools(undefined, { credentials: true }).find((t) => t.name === "fill_credential");
    expect(tool?.parameters).toMatchObject({ required: ["purpose", "index", "credential", "field"] });
    expect(READ_ONLY_ACTIONS.has("fill_credential")).toBe(false);
  });

  it("reads its arguments (numbers may come as strings) and describes the action", () => {
    const ok = parse({ index: "3", credential: 1, field: " password " });
    expect(ok).toEqual({
      ok: true,
      action: { name: "fill_credential", index: 3, credential: 1, field: "password" },
      purpose: 'Fill credential 1 field "password" into [3]',
    });
    expect(parse({ purpose: "Log in", index: 3, credential: "2", field: "totp" })).toMatchObject({
      ok: true,
      purpose: "Log in",
      action: { credential: 2, field: "totp" },
    });
  });

  it("says which argument is wrong", () => {
    expect(parse({ index: 3, field: "password" })).toMatchObject({
      ok: false,
      message: "invalid call of fill_credential: `credential` must be the credential's number (an integer)",
    });
    expect(parse({ index: 3, credential: 1, field: "  " })).toMatchObject({
      ok: false,
      message: 'invalid call of fill_credential: `field` must be the name of one of the credential\'s fields, or "totp"',
    });
    expect(parse({ credential: 1, field: "password" })).toMatchObject({
      ok: false,
      message: "invalid call of fill_credential: `index` must be an integer element index",
    });
    expect(describeAction({ name: "fill_credential", index: 7, credential: 2, field: "Username" })).toBe(
      'Fill credential 2 field "Username" into [7]',
    );
  });
});
