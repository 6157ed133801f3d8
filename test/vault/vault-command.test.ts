import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type VaultCommandDeps, vaultCommand } from "../../containers/cli/commands/vault.ts";
import { UsageError } from "../../containers/cli/format.ts";
import { systemClock } from "../../functions/lib/clock.ts";
import { defaultIds } from "../../functions/lib/ids.ts";
import { createServices } from "../../functions/services/index.ts";
import { createKeyring, VaultKey } from "../../functions/vault/crypto.ts";
import { ospreyVaultProvider } from "../../functions/vault/providers/osprey.ts";
import { vaultRepo } from "../../functions/vault/vault.repo.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";

/**
 * `osprey vault` in process (the real CLI runs in test/cli/vault-cli.test.ts): every usage error,
 * and values read from standard input in the order given.
 */

const B32 = "JBSWY3DPEHPK3PXPJBSWY3DP";

describe.each(driverCases(["pglite"]))("vault command in process ($driver)", ({ open }) => {
  let t: TestDatabase;
  let deps: VaultCommandDeps;
  let account: string;
  const keyring = createKeyring(new VaultKey(randomBytes(32)));

  beforeAll(async () => {
    t = await open();
    const services = createServices({ db: t.db, clock: systemClock, ids: defaultIds });
    deps = { db: t.db, services, clock: systemClock, keyring: () => keyring };
    account = (await services.accounts.create({ plan: "free" })).id;
  });
  afterAll(() => t?.dispose());

  async function run(args: string[], input = ""): Promise<{ out: string; err: string }> {
    const out: string[] = [];
    const err: string[] = [];
    await vaultCommand(deps, args, { out: (l) => out.push(l), err: (l) => err.push(l), input: Readable.from([input]) });
    return { out: out.join("\n"), err: err.join("\n") };
  }

  it("reads each `-` value from its own line of standard input, in the order the options were given", async () => {
    const { out } = await run(
      [
        "add",
        account,
        "--vault",
        "V",
        "--label",
        "Order",
        "--domains",
        "a.com",
        "--field",
        "username=-",
        "--totp",
        "-",
        "--field",
        "note=fixed",
        "--field",
        "password=-",
      ],
      `alice\n${B32}\nhunter2\nignored extra line\n`,
    );
    const [, connectionId = "", vaultName = "", itemId = ""] = out.split(":");
    const secret = await ospreyVaultProvider({ repo: vaultRepo(t.db), keyring }).reveal(
      { id: connectionId, accountId: account, url: null, token: null },
      { vaultName, itemId },
    );
    expect(secret).toEqual({
      fields: { username: "alice", note: "fixed", password: "hunter2" },
      totp: { secret: B32, algorithm: "SHA1", digits: 6, period: 30 },
    });
  });

  const base = () => ["add", account, "--vault", "V", "--label", "L"];
  const cases: [string, () => string[], RegExp, string?][] = [
    [
      "a bad domain",
      () => [...base(), "--domains", "good.com,bad_domain", "--field", "p=x"],
      /--domains: "bad_domain" is not a domain/,
    ],
    [
      "a wildcard domain",
      () => [...base(), "--domains", "*.example.com", "--field", "p=x"],
      /"\*\.example\.com" is not a domain/,
    ],
    ["no domains", () => [...base(), "--field", "p=x"], /needs --domains/],
    ["no vault", () => ["add", account, "--label", "L", "--domains", "a.com", "--field", "p=x"], /needs --vault/],
    [
      "a vault name with a colon",
      () => ["add", account, "--vault", "a:b", "--label", "L", "--domains", "a.com", "--field", "p=x"],
      /--vault must be 1 to 64/,
    ],
    ["no label", () => ["add", account, "--vault", "V", "--domains", "a.com", "--field", "p=x"], /needs --label/],
    ["no field", () => [...base(), "--domains", "a.com"], /at least one --field/],
    ["a field without =", () => [...base(), "--domains", "a.com", "--field", "s3cret"], /--field takes <id>=<value>/],
    ["a field id that is not one", () => [...base(), "--domains", "a.com", "--field", "1x=y"], /--field id "1x" must be/],
    [
      "a value as an extra word",
      () => [...base(), "--domains", "a.com", "--field", "password", "s3cret"],
      /takes exactly one account id/,
    ],
    ["a field twice", () => [...base(), "--domains", "a.com", "--field", "p=a", "--field", "p=b"], /--field p is given twice/],
    ["an empty value", () => [...base(), "--domains", "a.com", "--field", "p="], /--field p has an empty value/],
    ["a field named totp", () => [...base(), "--domains", "a.com", "--field", "totp=1"], /"totp" is the one-time code's field/],
    [
      "stdin ending early",
      () => [...base(), "--domains", "a.com", "--field", "p=-", "--totp", "-"],
      /standard input ended before the value for --totp/,
      "s3cret\n",
    ],
    [
      "an empty stdin line",
      () => [...base(), "--domains", "a.com", "--field", "p=-"],
      /the line read from standard input for --field p is empty/,
      "\n",
    ],
    [
      "an HOTP URI",
      () => [...base(), "--domains", "a.com", "--field", "p=x", "--totp", "-"],
      /HOTP \(counter-based\)/,
      `otpauth://hotp/x?secret=${B32}&counter=1\n`,
    ],
    [
      "a seed that is not base32",
      () => [...base(), "--domains", "a.com", "--field", "p=x", "--totp", "s3cret!"],
      /--totp: the TOTP seed is not a base32 secret/,
    ],
    ["an itemId that is not one", () => ["remove", "nope"], /"nope" is not an itemId/],
    ["remove without an itemId", () => ["remove"], /vault remove takes exactly one itemId/],
    ["enable of an unknown item", () => ["enable", "cred:vc_x:V:it_x"], /no vault item cred:vc_x:V:it_x/],
    ["list of two accounts", () => ["list", "a", "b"], /vault list takes at most one account id/],
    ["rekey with arguments", () => ["rekey", "now"], /vault rekey takes no arguments/],
    ["an unknown command", () => ["frobnicate"], /unknown vault command "frobnicate"/],
    ["no command", () => [], /vault needs a command/],
  ];
  it.each(cases)("%s is a usage error naming it, never the value", async (_name, args, message, input) => {
    const err = await run(args(), input).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).not.toContain("s3cret");
  });

  it("an unknown option is parseArgs' error (the CLI maps it to exit 2); an unknown account is NOT_FOUND", async () => {
    await expect(run([...base(), "--domains", "a.com", "--field", "p=x", "--bogus"])).rejects.toMatchObject({
      code: "ERR_PARSE_ARGS_UNKNOWN_OPTION",
    });
    await expect(
      run(["add", "acct_missing", "--vault", "V", "--label", "L", "--domains", "a.com", "--field", "p=x"]),
    ).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });

  it("connect, connections and disconnect go to vault-connect.ts", async () => {
    const { out } = await run(["connections", account, "--json"]);
    expect(Array.isArray(JSON.parse(out))).toBe(true);
    await expect(run(["disconnect"])).rejects.toBeInstanceOf(UsageError);
  });

  it("remove refuses an item of an external provider (the next sync would bring it back)", async () => {
    const repo = vaultRepo(t.db);
    const conn = await repo.insertConnection({
      id: "vc_ext1",
      accountId: account,
      provider: "onepassword",
      name: "1P",
      url: "http://x",
    });
    await repo.syncItems(
      account,
      conn.id,
      [{ vaultName: "Team", itemId: "i1", label: "Ext", domains: ["a.com"], fields: [], hasTotp: false }],
      {
        at: new Date(),
        newRowId: () => "vi_ext1",
      },
    );
    const err = await run(["remove", "cred:vc_ext1:Team:i1"]).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/comes from a onepassword connection: remove it there, or disable it here/);
    expect((await run(["disable", "cred:vc_ext1:Team:i1"])).out).toBe("Disabled cred:vc_ext1:Team:i1.");
  });
});
