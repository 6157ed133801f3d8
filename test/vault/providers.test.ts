import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createBitwardenProvider } from "../../functions/vault/providers/bitwarden.ts";
import { checkProviderUrl } from "../../functions/vault/providers/http.ts";
import { createOnePasswordProvider } from "../../functions/vault/providers/onepassword.ts";
import {
  ProviderAuthError,
  type ProviderConnection,
  type ProviderItem,
  ProviderItemGoneError,
  ProviderUnavailableError,
  type VaultProvider,
} from "../../functions/vault/providers/types.ts";
import {
  type BwFolder,
  type BwItem,
  type BwStub,
  type ConnectStub,
  type ConnectVault,
  startBwServe,
  startConnect,
} from "../helpers/vault-upstreams.ts";

/**
 * The external providers against local servers speaking their APIs: what list() shows (metadata
 * only), what reveal() gives, and that every failure is the port's error, fast, naming the
 * connection and never a token or a secret value.
 */

const CONNECT_TOKEN = "eyJhbGciOiJFUzI1NiJ9.op-connect-token-SECRET.sig";
const BW_TOKEN = "bw-proxy-token-SECRET";
const GH_PASSWORD = "gh-pa55word-SECRET";
const GH_SEED = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
const ROUTER_PASSWORD = "router-admin-SECRET";
const STRIPE_KEY = "sk_live_SECRET_stripe";
const NOTE_SECRET = "note-body-SECRET";
const AWS_PASSWORD = "aws-root-SECRET";
const AWS_SEED = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";
const BW_PASSWORD = "bw-example-pass-SECRET";
const BW_PIN = "4711-SECRET";
const BW_SEED = "KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU";
const BW_NOFOLDER_PASSWORD = "nofolder-SECRET";
const STEAM_SEED = "steam://STEAMSECRET";

const SECRETS = [
  CONNECT_TOKEN,
  BW_TOKEN,
  GH_PASSWORD,
  GH_SEED,
  ROUTER_PASSWORD,
  STRIPE_KEY,
  NOTE_SECRET,
  AWS_PASSWORD,
  AWS_SEED,
  BW_PASSWORD,
  BW_PIN,
  BW_SEED,
  BW_NOFOLDER_PASSWORD,
  STEAM_SEED,
  "SECRET",
];

const PERSONAL = "k6tb3c7zoxjr2ypf5vq4mcfd2a";
const OPS = "n3q6ghv2uf7xwqz4xsxrmcaa4y";

function connectVaults(): ConnectVault[] {
  return [
    {
      id: PERSONAL,
      name: "Personal",
      items: [
        {
          id: "gh4u5vlxqbt2dnkjvzt3x6ewuy",
          title: "GitHub",
          category: "LOGIN",
          urls: [
            { href: "https://GitHub.com/login", primary: true },
            { href: "https://gist.github.com:8443/x?y=1" },
            { href: "example.org" },
            { href: "androidapp://com.github.android" },
            { href: "https://github.com/other" },
          ],
          tags: ["dev"],
          fields: [
            { id: "username", type: "STRING", purpose: "USERNAME", label: "username", value: "octocat" },
            { id: "password", type: "CONCEALED", purpose: "PASSWORD", label: "password", value: GH_PASSWORD },
            { id: "notesPlain", type: "STRING", purpose: "NOTES", label: "notesPlain", value: NOTE_SECRET },
            {
              id: "TOTP_x1",
              type: "OTP",
              label: "one-time password",
              value: `otpauth://totp/GitHub:octocat?secret=${GH_SEED}&issuer=GitHub&algorithm=SHA256&digits=8&period=60`,
              section: { id: "add more" },
            },
          ],
        },
        {
          id: "rt7d2c3hkfzq6vmw3bx5ylx4ya",
          title: "Router admin",
          category: "PASSWORD",
          fields: [{ id: "password", type: "CONCEALED", purpose: "PASSWORD", label: "password", value: ROUTER_PASSWORD }],
        },
        {
          id: "sn2kdq5ml3bxz4g6c7fhtqwv5e",
          title: "Shopping list",
          category: "SECURE_NOTE",
          fields: [{ id: "notesPlain", type: "STRING", purpose: "NOTES", label: "notesPlain", value: NOTE_SECRET }],
        },
        {
          id: "st3ripe5ml3bxz4g6c7fhtqwv5",
          title: "Stripe",
          category: "API_CREDENTIAL",
          urls: [{ href: "https://dashboard.stripe.com" }],
          fields: [
            { id: "username", type: "STRING", label: "username", value: "billing" },
            { id: "credential", type: "CONCEALED", label: "credential", value: STRIPE_KEY },
          ],
        },
        {
          id: "ar5chived2bxz4g6c7fhtqwv5e",
          title: "Old login",
          category: "LOGIN",
          state: "ARCHIVED",
          fields: [{ id: "password", type: "CONCEALED", purpose: "PASSWORD", label: "password", value: NOTE_SECRET }],
        },
      ],
    },
    {
      id: OPS,
      name: "Ops:Prod",
      items: [
        {
          id: "aw5console3xz4g6c7fhtqwv5e",
          title: "AWS console",
          category: "LOGIN",
          urls: [{ href: "https://signin.aws.amazon.com/console" }],
          fields: [
            { id: "username", type: "EMAIL", purpose: "USERNAME", label: "email", value: "ops@example.com" },
            { id: "password", type: "CONCEALED", purpose: "PASSWORD", label: "password", value: AWS_PASSWORD },
            { id: "otp1", type: "OTP", label: "one-time password", value: AWS_SEED.match(/.{4}/g)?.join(" ") ?? "" },
          ],
        },
      ],
    },
  ];
}

const BW_PERSONAL = "f2a1c3d4-0000-4000-8000-000000000001";
const BW_CLIENTS = "f2a1c3d4-0000-4000-8000-000000000002";
const BW_FOLDERS: BwFolder[] = [
  { id: BW_PERSONAL, name: "Personal" },
  { id: BW_CLIENTS, name: "Work:Clients" },
];

function bwItems(): BwItem[] {
  return [
    {
      id: "0b9a3c1e-1111-4111-8111-000000000001",
      type: 1,
      name: "Example",
      folderId: BW_PERSONAL,
      login: {
        username: "alice",
        password: BW_PASSWORD,
        totp: `otpauth://totp/Example:alice?secret=${BW_SEED}&issuer=Example`,
        uris: [
          { match: null, uri: "https://Login.Example.com:8443/" },
          { match: 4, uri: "^https://.*\\.example\\.com$" },
          { match: null, uri: "androidapp://com.example" },
          { match: 0, uri: "example.net" },
        ],
      },
      fields: [
        { name: "PIN", value: BW_PIN, type: 1 },
        { name: "Remember me", value: "true", type: 2 },
        { name: "Account", value: "acme", type: 0 },
        { name: "Linked", value: null, type: 3, linkedId: 100 },
      ],
    },
    {
      id: "0b9a3c1e-1111-4111-8111-000000000002",
      type: 1,
      name: "No folder",
      folderId: null,
      login: { username: null, password: BW_NOFOLDER_PASSWORD, totp: BW_SEED, uris: [] },
    },
    {
      id: "0b9a3c1e-1111-4111-8111-000000000003",
      type: 1,
      name: "Steam",
      folderId: BW_CLIENTS,
      login: {
        username: "gamer",
        password: BW_PASSWORD,
        totp: STEAM_SEED,
        uris: [{ match: null, uri: "https://store.steampowered.com" }],
      },
    },
    {
      id: "0b9a3c1e-1111-4111-8111-000000000004",
      type: 2,
      name: "A note",
      folderId: null,
      notes: NOTE_SECRET,
      secureNote: { type: 0 },
    },
    {
      id: "0b9a3c1e-1111-4111-8111-000000000005",
      type: 3,
      name: "Visa",
      folderId: BW_PERSONAL,
      card: { cardholderName: "Alice", number: "4111111111111111", code: "123" },
    },
  ];
}

const conn = (url: string, token: string | null, id = "vc_test0000000000000000000001"): ProviderConnection => ({
  id,
  accountId: "acct_test",
  url,
  token,
});

/** The error `p` fails with, checked to be `type`, naming the connection and quoting no secret. */
async function failure(
  promise: Promise<unknown>,
  type: new (...args: never[]) => Error,
  connection: ProviderConnection,
  withinMs = 4_000, // "quickly": under the slow stub's 5 s, with room for a loaded machine
): Promise<Error> {
  const started = Date.now();
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(Date.now() - started).toBeLessThan(withinMs);
  expect(err).toBeInstanceOf(type);
  const e = err as Error;
  expect(e.message).toContain(connection.id);
  for (const secret of SECRETS) expect(e.message).not.toContain(secret);
  if (connection.token) expect(e.message).not.toContain(connection.token);
  return e;
}

const byLabel = (items: ProviderItem[], label: string): ProviderItem => {
  const item = items.find((i) => i.label === label);
  if (!item) throw new Error(`no item "${label}" in ${items.map((i) => i.label).join(", ")}`);
  return item;
};

describe("1Password Connect", () => {
  let connect: ConnectStub;
  let provider: VaultProvider;
  let c: ProviderConnection;
  beforeAll(async () => {
    connect = await startConnect({ token: CONNECT_TOKEN, vaults: connectVaults() });
    provider = createOnePasswordProvider({ timeoutMs: 300 });
    c = conn(connect.url, CONNECT_TOKEN);
  });
  afterAll(() => connect.close());
  beforeEach(() => {
    connect.behave({ kind: "ok" });
    connect.token = CONNECT_TOKEN;
    connect.vaults = connectVaults();
  });

  it("lists login-like items with their fields (no values), domains, TOTP flag and vault names", async () => {
    const items = await provider.list(c);
    expect(items.map((i) => i.label).sort()).toEqual(["AWS console", "GitHub", "Router admin", "Stripe"]);
    expect(byLabel(items, "GitHub")).toEqual({
      vaultName: "Personal",
      itemId: "gh4u5vlxqbt2dnkjvzt3x6ewuy",
      label: "GitHub",
      domains: ["github.com", "gist.github.com", "example.org"],
      fields: [
        { fieldId: "username", label: "username", type: "STRING" },
        { fieldId: "password", label: "password", type: "CONCEALED" },
        { fieldId: "notesPlain", label: "notesPlain", type: "STRING" },
      ],
      hasTotp: true,
    });
    expect(byLabel(items, "Router admin")).toMatchObject({ domains: [], hasTotp: false });
    // Not a login category, but it holds a CONCEALED field.
    expect(byLabel(items, "Stripe").fields.map((f) => f.type)).toEqual(["STRING", "CONCEALED"]);
    // "Ops:Prod" has a colon: the vault goes by its id, so cred:<connection>:<vault>:<item> stays readable.
    expect(byLabel(items, "AWS console")).toMatchObject({ vaultName: OPS, hasTotp: true });
    expect(byLabel(items, "AWS console").fields).toContainEqual({ fieldId: "username", label: "email", type: "EMAIL" });
    expect(JSON.stringify(items)).not.toMatch(/SECRET|JBSWY3DP|GEZDGNBV/);
    for (const req of connect.requests) expect(req.headers.authorization).toBe(`Bearer ${CONNECT_TOKEN}`);
  });

  it("reveals the values by field id and the TOTP spec, never the OTP seed as a field", async () => {
    expect(await provider.reveal(c, { vaultName: "Personal", itemId: "gh4u5vlxqbt2dnkjvzt3x6ewuy" })).toEqual({
      fields: { username: "octocat", password: GH_PASSWORD, notesPlain: NOTE_SECRET },
      totp: { secret: GH_SEED, algorithm: "SHA256", digits: 8, period: 60 },
    });
    // A bare base32 seed, grouped in fours: SHA1, 6 digits, 30 s; the vault named by its id.
    expect(await provider.reveal(c, { vaultName: OPS, itemId: "aw5console3xz4g6c7fhtqwv5e" })).toEqual({
      fields: { username: "ops@example.com", password: AWS_PASSWORD },
      totp: { secret: AWS_SEED, algorithm: "SHA1", digits: 6, period: 30 },
    });
  });

  it("two vaults of one name both go by their ids", async () => {
    connect.vaults = [...connectVaults(), { id: "dup2vaultxxxxxxxxxxxxxxxxx", name: "Personal", items: [] }];
    const items = await provider.list(c);
    expect(byLabel(items, "GitHub").vaultName).toBe(PERSONAL);
    expect((await provider.reveal(c, { vaultName: PERSONAL, itemId: "gh4u5vlxqbt2dnkjvzt3x6ewuy" })).fields.password).toBe(
      GH_PASSWORD,
    );
  });

  it("a refused token is ProviderAuthError naming the connection, never the token (the 401 body quotes it)", async () => {
    connect.token = "another-token";
    const e = await failure(provider.list(c), ProviderAuthError, c);
    expect(e.message).toMatch(/refused the token \(401\)/);
    await failure(provider.reveal(c, { vaultName: "Personal", itemId: "gh4u5vlxqbt2dnkjvzt3x6ewuy" }), ProviderAuthError, c);
    const wrong = conn(connect.url, "wrong-token-SECRET");
    connect.token = CONNECT_TOKEN;
    await failure(provider.list(wrong), ProviderAuthError, wrong);
    await failure(provider.list(conn(connect.url, null)), ProviderAuthError, c);
    connect.behave({ kind: "status", status: 403 });
    await failure(provider.list(c), ProviderAuthError, c);
  });

  it("down, 5xx, invalid JSON, an unexpected shape, a hang-up, a redirect and a slow server are ProviderUnavailableError, fast", async () => {
    for (const behaviour of [
      { kind: "status", status: 500 },
      { kind: "status", status: 503 },
      { kind: "invalid-json" },
      { kind: "body", body: { vaults: [] } },
      { kind: "hang-up" },
      { kind: "redirect", location: "http://127.0.0.1:9/steal" },
      { kind: "slow", delayMs: 5_000 },
    ] as const) {
      connect.behave(behaviour);
      const e = await failure(provider.list(c), ProviderUnavailableError, c, 2_000);
      if (behaviour.kind === "slow") expect(e.message).toContain("no answer within 300 ms");
      await failure(
        provider.reveal(c, { vaultName: "Personal", itemId: "gh4u5vlxqbt2dnkjvzt3x6ewuy" }),
        ProviderUnavailableError,
        c,
      );
    }
    const down = await startConnect({ token: CONNECT_TOKEN, vaults: [] });
    await down.close();
    const e = await failure(provider.list(conn(down.url, CONNECT_TOKEN)), ProviderUnavailableError, c);
    expect(e.message).toContain("ECONNREFUSED");
  });

  it("an item malformed among good ones fails the list rather than dropping it silently", async () => {
    const vaults = connectVaults();
    const first = vaults[0]?.items[0];
    if (!first) throw new Error("fixture");
    (first as { fields: unknown }).fields = "not a list";
    connect.vaults = vaults;
    await failure(provider.list(c), ProviderUnavailableError, c);
  });

  it("a deleted item is ProviderItemGoneError on reveal, and so is an item whose vault is gone or renamed", async () => {
    const deleted = connectVaults();
    deleted[0]?.items.splice(0, 1);
    connect.vaults = deleted;
    await failure(provider.reveal(c, { vaultName: "Personal", itemId: "gh4u5vlxqbt2dnkjvzt3x6ewuy" }), ProviderItemGoneError, c);
    await failure(provider.reveal(c, { vaultName: "Renamed", itemId: "gh4u5vlxqbt2dnkjvzt3x6ewuy" }), ProviderItemGoneError, c);
    expect((await provider.list(c)).map((i) => i.label)).not.toContain("GitHub");
  });

  it("refuses a URL that is not http(s) before any request, and bounds the number of items", async () => {
    for (const url of [
      "file:///etc/passwd",
      "ftp://127.0.0.1/",
      "javascript:alert(1)",
      "http://user:pw@127.0.0.1/",
      "not a url",
    ]) {
      expect(checkProviderUrl(url).ok).toBe(false);
      const bad = conn(url, CONNECT_TOKEN);
      await failure(provider.list(bad), ProviderUnavailableError, bad);
    }
    expect(checkProviderUrl("https://op.internal:8443/connect").ok).toBe(true);
    const small = createOnePasswordProvider({ maxItems: 3 });
    expect((await failure(small.list(c), ProviderUnavailableError, c)).message).toContain("more than 3 items");
  });

  it("keeps a path prefix of the URL (a Connect server behind a reverse proxy)", async () => {
    const before = connect.requests.length;
    await failure(provider.list(conn(`${connect.url}/prefix`, CONNECT_TOKEN)), ProviderUnavailableError, c);
    expect(connect.requests[before]?.path).toBe("/prefix/v1/vaults");
  });
});

describe("Bitwarden bw serve", () => {
  let bw: BwStub;
  let provider: VaultProvider;
  let c: ProviderConnection;
  beforeAll(async () => {
    bw = await startBwServe({ items: bwItems(), folders: BW_FOLDERS });
    provider = createBitwardenProvider({ timeoutMs: 300 });
    c = conn(bw.url, null, "vc_bitwarden00000000000000001");
  });
  afterAll(() => bw.close());
  beforeEach(() => {
    bw.behave({ kind: "ok" });
    bw.locked = false;
    bw.items = bwItems();
    bw.folders = BW_FOLDERS;
  });

  it("lists login items with their fields (no values), domains from their URIs, TOTP flag and folder names", async () => {
    const items = await provider.list(c);
    expect(items.map((i) => i.label)).toEqual(["Example", "No folder", "Steam"]);
    expect(items[0]).toEqual({
      vaultName: "Personal",
      itemId: "0b9a3c1e-1111-4111-8111-000000000001",
      label: "Example",
      // The regular expression (match 4) and the app URI name no host.
      domains: ["login.example.com", "example.net"],
      fields: [
        { fieldId: "username", label: "username", type: "STRING" },
        { fieldId: "password", label: "password", type: "CONCEALED" },
        { fieldId: "custom:0", label: "PIN", type: "CONCEALED" },
        { fieldId: "custom:2", label: "Account", type: "STRING" },
      ],
      hasTotp: true,
    });
    // No folder: "Bitwarden"; a null username is no field; a bare base32 seed is a TOTP.
    expect(items[1]).toMatchObject({
      vaultName: "Bitwarden",
      fields: [{ fieldId: "password", label: "password", type: "CONCEALED" }],
      hasTotp: true,
    });
    // A folder with ":" goes by its id; a Steam code is no TOTP we can make.
    expect(items[2]).toMatchObject({ vaultName: BW_CLIENTS, hasTotp: false, domains: ["store.steampowered.com"] });
    expect(JSON.stringify(items)).not.toMatch(/SECRET|KRSXG5CT|4111111111111111/);
    for (const req of bw.requests) expect(req.headers.authorization).toBeUndefined();
  });

  it("reveals username, password, custom fields and the TOTP spec", async () => {
    expect(await provider.reveal(c, { vaultName: "Personal", itemId: "0b9a3c1e-1111-4111-8111-000000000001" })).toEqual({
      fields: { username: "alice", password: BW_PASSWORD, "custom:0": BW_PIN, "custom:2": "acme" },
      totp: { secret: BW_SEED, algorithm: "SHA1", digits: 6, period: 30 },
    });
    expect(await provider.reveal(c, { vaultName: "Bitwarden", itemId: "0b9a3c1e-1111-4111-8111-000000000002" })).toEqual({
      fields: { password: BW_NOFOLDER_PASSWORD },
      totp: { secret: BW_SEED, algorithm: "SHA1", digits: 6, period: 30 },
    });
    expect((await provider.reveal(c, { vaultName: BW_CLIENTS, itemId: "0b9a3c1e-1111-4111-8111-000000000003" })).totp).toBeNull();
  });

  it("sends a configured token as Bearer, and a refused one is ProviderAuthError", async () => {
    const proxied = await startBwServe({ items: bwItems(), folders: BW_FOLDERS, token: BW_TOKEN });
    try {
      const good = conn(proxied.url, BW_TOKEN);
      expect(await provider.list(good)).toHaveLength(3);
      expect(proxied.requests.at(-1)?.headers.authorization).toBe(`Bearer ${BW_TOKEN}`);
      const wrong = conn(proxied.url, "wrong-bw-token-SECRET");
      await failure(provider.list(wrong), ProviderAuthError, wrong);
      await failure(provider.list(conn(proxied.url, null, c.id)), ProviderAuthError, c);
    } finally {
      await proxied.close();
    }
  });

  it("a locked vault is ProviderAuthError", async () => {
    bw.locked = true;
    const e = await failure(provider.list(c), ProviderAuthError, c);
    expect(e.message).toContain("locked");
    await failure(
      provider.reveal(c, { vaultName: "Personal", itemId: "0b9a3c1e-1111-4111-8111-000000000001" }),
      ProviderAuthError,
      c,
    );
  });

  it("a deleted item is ProviderItemGoneError", async () => {
    bw.items = bwItems().slice(1);
    await failure(
      provider.reveal(c, { vaultName: "Personal", itemId: "0b9a3c1e-1111-4111-8111-000000000001" }),
      ProviderItemGoneError,
      c,
    );
  });

  it("down, 5xx, invalid JSON, an unexpected shape, a hang-up and a slow server are ProviderUnavailableError, fast", async () => {
    for (const behaviour of [
      { kind: "status", status: 500 },
      { kind: "invalid-json" },
      { kind: "body", body: { success: true, data: { object: "list" } } },
      { kind: "body", body: [1, 2, 3] },
      { kind: "hang-up" },
      { kind: "slow", delayMs: 5_000 },
    ] as const) {
      bw.behave(behaviour);
      await failure(provider.list(c), ProviderUnavailableError, c, 2_000);
      await failure(
        provider.reveal(c, { vaultName: "Personal", itemId: "0b9a3c1e-1111-4111-8111-000000000001" }),
        ProviderUnavailableError,
        c,
        2_000,
      );
    }
    bw.behave({ kind: "ok" });
    const broken = bwItems();
    (broken[0] as { login: unknown }).login = { username: 42, password: BW_PASSWORD };
    bw.items = broken;
    await failure(provider.list(c), ProviderUnavailableError, c);
    const down = await startBwServe({ items: [], folders: [] });
    await down.close();
    await failure(provider.list(conn(down.url, null, c.id)), ProviderUnavailableError, c);
  });

  it("bounds the number of items", async () => {
    const small = createBitwardenProvider({ maxItems: 2 });
    expect((await failure(small.list(c), ProviderUnavailableError, c)).message).toContain("more than 2 items");
  });
});
