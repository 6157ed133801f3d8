import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  type AllowedHost,
  ConfigError,
  isPrivateHostAllowed,
  parseAllowedHost,
  parseConfig,
} from "../functions/config/config.ts";
import { VaultKey } from "../functions/vault/crypto.ts";

const CWD = "/srv/osprey";

function configError(env: Record<string, string | undefined>): ConfigError {
  try {
    parseConfig(env, CWD);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error("expected a ConfigError");
}

describe("parseConfig", () => {
  it("has defaults for an empty environment", () => {
    expect(parseConfig({}, CWD)).toEqual({
      port: 8787,
      host: "127.0.0.1",
      dataDir: "/srv/osprey/.osprey",
      database: { driver: "pglite", dataDir: "/srv/osprey/.osprey/pglite" },
      allowPrivateHosts: [],
      fetchNeverExpireHosts: [],
      logLevel: "info",
      shutdownTimeoutMs: 10_000,
      chromePath: null,
      model: null,
      modelVision: false,
      publicUrl: null,
      blobStore: { kind: "files", dir: "/srv/osprey/.osprey/blobs" },
      renderSecret: null,
      queue: { kind: "postgres" },
      worker: true,
      workerConcurrency: 2,
      workerHealthPort: null,
      workerRenderPort: null,
      runLeaseMs: 30_000,
      search: {
        enabled: true,
        sharePublicPages: false,
        searxngUrl: null,
        braveApiKey: null,
        braveUrl: null,
        openalexUrl: null,
        openalexApiKey: null,
        openalexMailto: null,
      },
      browser: {
        sessionsEnabled: true,
        warmPool: 2,
        maxSessions: 16,
        countryProxies: {},
        port: null,
        hostUrl: null,
        publicUrl: null,
      },
      vault: { key: null, previousKeys: [] },
    });
  });

  it("parses the vault keys (base64 or hex); a bad one stops start-up naming the variable, never the value", () => {
    const current = randomBytes(32);
    const old1 = randomBytes(32);
    const old2 = randomBytes(32);
    const c = parseConfig(
      {
        OSPREY_VAULT_KEY: current.toString("base64"),
        OSPREY_VAULT_KEY_PREVIOUS: ` ${old1.toString("hex")} ,, ${old2.toString("base64url")} `,
      },
      CWD,
    );
    expect(c.vault.key?.id).toBe(new VaultKey(current).id);
    expect(c.vault.previousKeys.map((k) => k.id)).toEqual([new VaultKey(old1).id, new VaultKey(old2).id]);
    // The parsed config carries no key bytes that a log line of it could show.
    expect(JSON.stringify(c)).not.toContain(current.toString("base64").slice(0, 12));
    expect(JSON.stringify(c)).not.toContain(current.toString("hex").slice(0, 12));
    expect(parseConfig({ OSPREY_VAULT_KEY: current.toString("hex") }, CWD).vault.key?.id).toBe(new VaultKey(current).id);

    const short = randomBytes(16).toString("base64");
    const e1 = configError({ OSPREY_VAULT_KEY: short });
    expect(e1.message).toBe(
      'invalid configuration: OSPREY_VAULT_KEY must be 32 bytes as base64 (44 characters, e.g. from `openssl rand -base64 32`) or 64 hex characters (got "<redacted>")',
    );
    expect(configError({ OSPREY_VAULT_KEY: `${current.toString("hex")}ff` }).message).toMatch(
      /OSPREY_VAULT_KEY must be 32 bytes/,
    );
    const badPrevious = `${old1.toString("hex")},hunter2hunter2`;
    const e2 = configError({ OSPREY_VAULT_KEY_PREVIOUS: badPrevious });
    expect(e2.message).toMatch(
      /^invalid configuration: OSPREY_VAULT_KEY_PREVIOUS has an entry \(number 2\) that is not 32 bytes/,
    );
    for (const e of [e1, e2]) {
      expect(e.message).not.toContain("hunter2");
      expect(e.message).not.toContain(short);
      expect(e.message).not.toContain(old1.toString("hex"));
    }
    expect(parseConfig({ OSPREY_VAULT_KEY: " ", OSPREY_VAULT_KEY_PREVIOUS: "" }, CWD).vault).toEqual({
      key: null,
      previousKeys: [],
    });
  });

  it("parses the browser session settings; a bad proxy entry names its country and never echoes a password", () => {
    const c = parseConfig(
      {
        OSPREY_BROWSER_SESSIONS: "off",
        OSPREY_BROWSER_WARM_POOL: "0",
        OSPREY_BROWSER_MAX_SESSIONS: "4",
        OSPREY_PROXY_COUNTRIES: " us=http://u:p%40ss@proxy-us:8080 , DE=https://proxy-de:3128/ ",
        OSPREY_BROWSER_PORT: "8082",
        OSPREY_BROWSER_HOST_URL: "http://10.0.1.23:8082/",
        OSPREY_BROWSER_PUBLIC_URL: "https://browser.example.com/",
      },
      CWD,
    );
    expect(c.browser).toEqual({
      sessionsEnabled: false,
      warmPool: 0,
      maxSessions: 4,
      countryProxies: { US: "http://u:p%40ss@proxy-us:8080", DE: "https://proxy-de:3128/" },
      port: 8082,
      hostUrl: "http://10.0.1.23:8082",
      publicUrl: "https://browser.example.com",
    });
    const bad = (env: Record<string, string>) => () => parseConfig(env, CWD);
    expect(bad({ OSPREY_BROWSER_HOST_URL: "http://10.0.1.23:8082/browser" })).toThrow(
      /OSPREY_BROWSER_HOST_URL must be an http\(s\) URL with no path/,
    );
    expect(bad({ OSPREY_BROWSER_PUBLIC_URL: "browser.example.com" })).toThrow(
      /OSPREY_BROWSER_PUBLIC_URL must be an http\(s\) URL/,
    );
    expect(bad({ OSPREY_BROWSER_PORT: "0" })).toThrow(/OSPREY_BROWSER_PORT must be an integer between 1 and 65535/);
    expect(bad({ OSPREY_PROXY_COUNTRIES: "XX=http://p:1" })).toThrow(/OSPREY_PROXY_COUNTRIES has an entry for "XX"/);
    expect(bad({ OSPREY_PROXY_COUNTRIES: "US=socks5://u:hunter2@p:1" })).toThrow(
      /bad proxy URL for US: proxy scheme "socks5" is not supported/,
    );
    expect(bad({ OSPREY_PROXY_COUNTRIES: "US=socks5://u:hunter2@p:1" })).not.toThrow(/hunter2/);
    expect(bad({ OSPREY_PROXY_COUNTRIES: "US=http://u:hunter2@p:1/path" })).toThrow(
      /bad proxy URL for US: a proxy URL has no path/,
    );
    expect(bad({ OSPREY_PROXY_COUNTRIES: "US=" })).toThrow(/bad proxy URL for US: the URL is empty/);
    expect(bad({ OSPREY_BROWSER_WARM_POOL: "-1" })).toThrow(/OSPREY_BROWSER_WARM_POOL must be an integer between 0 and 64/);
    expect(bad({ OSPREY_BROWSER_MAX_SESSIONS: "0" })).toThrow(/OSPREY_BROWSER_MAX_SESSIONS/);
    expect(bad({ OSPREY_BROWSER_SESSIONS: "maybe" })).toThrow(/OSPREY_BROWSER_SESSIONS must be on or off/);
  });

  it("parses the search settings; a bad URL names the variable and never echoes a key", () => {
    const c = parseConfig(
      {
        OSPREY_SEARCH: "off",
        OSPREY_SEARCH_SHARE_PUBLIC_PAGES: "true",
        OSPREY_SEARXNG_URL: "http://127.0.0.1:8888/",
        OSPREY_BRAVE_API_KEY: "BSA-secret",
        OSPREY_OPENALEX_URL: "https://api.openalex.org",
        OSPREY_OPENALEX_MAILTO: "ops@example.com",
      },
      CWD,
    );
    expect(c.search).toEqual({
      enabled: false,
      sharePublicPages: true,
      searxngUrl: "http://127.0.0.1:8888",
      braveApiKey: "BSA-secret",
      braveUrl: null,
      openalexUrl: "https://api.openalex.org",
      openalexApiKey: null,
      openalexMailto: "ops@example.com",
    });
    expect(() => parseConfig({ OSPREY_SEARXNG_URL: "searx.local" }, CWD)).toThrow(/OSPREY_SEARXNG_URL must be an http\(s\) URL/);
    expect(() => parseConfig({ OSPREY_SEARCH: "maybe" }, CWD)).toThrow(/OSPREY_SEARCH must be on or off/);
    expect(() => parseConfig({ OSPREY_SEARCH_SHARE_PUBLIC_PAGES: "yes" }, CWD)).toThrow(
      /OSPREY_SEARCH_SHARE_PUBLIC_PAGES must be true or false/,
    );
  });

  it("parses the run worker and queue settings, and refuses bad values naming the variable", () => {
    const c = parseConfig(
      {
        OSPREY_QUEUE: "sqs",
        OSPREY_SQS_QUEUE_URL: "http://127.0.0.1:4566/000000000000/runs",
        OSPREY_SQS_ENDPOINT: "http://127.0.0.1:4566",
        OSPREY_WORKER: "off",
        OSPREY_WORKER_CONCURRENCY: "4",
        OSPREY_RUN_LEASE_SECONDS: "10",
        OSPREY_PUBLIC_URL: "https://osprey.example.com/",
        OSPREY_LLM_VISION: "true",
      },
      CWD,
    );
    expect(c).toMatchObject({
      queue: {
        kind: "sqs",
        queueUrl: "http://127.0.0.1:4566/000000000000/runs",
        endpoint: "http://127.0.0.1:4566",
        deadLetterQueueUrl: null,
        region: "us-east-1",
      },
      worker: false,
      workerConcurrency: 4,
      runLeaseMs: 10_000,
      publicUrl: "https://osprey.example.com",
      modelVision: true,
    });
    expect(() => parseConfig({ OSPREY_QUEUE: "sqs" }, CWD)).toThrow(/OSPREY_SQS_QUEUE_URL is required/);
    expect(() => parseConfig({ OSPREY_QUEUE: "kafka" }, CWD)).toThrow(/OSPREY_QUEUE must be postgres or sqs/);
    expect(() => parseConfig({ OSPREY_WORKER_CONCURRENCY: "0" }, CWD)).toThrow(/OSPREY_WORKER_CONCURRENCY must be at least 1/);
    expect(() => parseConfig({ OSPREY_RUN_LEASE_SECONDS: "1" }, CWD)).toThrow(/OSPREY_RUN_LEASE_SECONDS must be at least 2/);
    expect(() => parseConfig({ OSPREY_PUBLIC_URL: "ftp://x" }, CWD)).toThrow(/OSPREY_PUBLIC_URL must be an http\(s\) URL/);
    expect(() => parseConfig({ OSPREY_WORKER: "yes" }, CWD)).toThrow(/OSPREY_WORKER must be on or off/);
  });

  it("parses the artifact store settings: files by default, S3 with a bucket", () => {
    expect(parseConfig({ OSPREY_DATA_DIR: "/var/lib/osprey" }, CWD).blobStore).toEqual({
      kind: "files",
      dir: "/var/lib/osprey/blobs",
    });
    expect(
      parseConfig(
        {
          OSPREY_BLOB_STORE: "s3",
          OSPREY_S3_BUCKET: "osprey-artifacts",
          OSPREY_S3_PREFIX: "/prod/blobs/",
          OSPREY_S3_ENDPOINT: "http://127.0.0.1:4566/",
          AWS_REGION: "eu-west-1",
        },
        CWD,
      ).blobStore,
    ).toEqual({
      kind: "s3",
      bucket: "osprey-artifacts",
      prefix: "prod/blobs",
      endpoint: "http://127.0.0.1:4566",
      region: "eu-west-1",
    });
    expect(parseConfig({ OSPREY_BLOB_STORE: "s3", OSPREY_S3_BUCKET: "b.example-1" }, CWD).blobStore).toEqual({
      kind: "s3",
      bucket: "b.example-1",
      prefix: "",
      endpoint: null,
      region: "us-east-1",
    });
  });

  it("stops on a bad artifact store setting or combination with one line naming the variable", () => {
    const line = (env: Record<string, string>) => configError(env).message;
    expect(line({ OSPREY_BLOB_STORE: "s3" })).toBe(
      "invalid configuration: OSPREY_S3_BUCKET is required when OSPREY_BLOB_STORE is s3",
    );
    expect(line({ OSPREY_BLOB_STORE: "gcs" })).toBe('invalid configuration: OSPREY_BLOB_STORE must be files or s3 (got "gcs")');
    expect(line({ OSPREY_BLOB_STORE: "s3", OSPREY_S3_BUCKET: "Upper_Case" })).toMatch(
      /^invalid configuration: OSPREY_S3_BUCKET must be an S3 bucket name .*\(got "Upper_Case"\)$/,
    );
    expect(line({ OSPREY_BLOB_STORE: "s3", OSPREY_S3_BUCKET: "ok-bucket", OSPREY_S3_PREFIX: "a//b" })).toMatch(
      /^invalid configuration: OSPREY_S3_PREFIX must be path segments/,
    );
    expect(line({ OSPREY_BLOB_STORE: "s3", OSPREY_S3_BUCKET: "ok-bucket", OSPREY_S3_ENDPOINT: "127.0.0.1:4566" })).toMatch(
      /^invalid configuration: OSPREY_S3_ENDPOINT must be an http\(s\) URL/,
    );
    // An S3 setting without OSPREY_BLOB_STORE=s3 would silently keep artifacts on local disk.
    expect(line({ OSPREY_S3_BUCKET: "ok-bucket" })).toBe(
      "invalid configuration: OSPREY_S3_BUCKET is set but OSPREY_BLOB_STORE is files (set OSPREY_BLOB_STORE=s3 to use S3)",
    );
    expect(line({ OSPREY_BLOB_STORE: "files", OSPREY_S3_ENDPOINT: "http://127.0.0.1:4566" })).toMatch(
      /OSPREY_S3_ENDPOINT is set but OSPREY_BLOB_STORE is files/,
    );
    for (const message of [line({ OSPREY_BLOB_STORE: "s3" }), line({ OSPREY_S3_PREFIX: "x" })]) {
      expect(message).not.toContain("\n");
    }
  });

  it("parses OSPREY_HEALTH_PORT (off by default) and refuses a port out of range", () => {
    expect(parseConfig({ OSPREY_HEALTH_PORT: "8081" }, CWD).workerHealthPort).toBe(8081);
    expect(() => parseConfig({ OSPREY_HEALTH_PORT: "0" }, CWD)).toThrow(
      /OSPREY_HEALTH_PORT must be an integer between 1 and 65535/,
    );
    expect(() => parseConfig({ OSPREY_HEALTH_PORT: "http" }, CWD)).toThrow(/OSPREY_HEALTH_PORT must be an integer/);
  });

  it("parses OSPREY_RENDER_PORT (off by default), which needs OSPREY_RENDERER_SECRET of at least 32 characters", () => {
    const secret = "s".repeat(32);
    const c = parseConfig({ OSPREY_RENDER_PORT: "8082", OSPREY_RENDERER_SECRET: secret }, CWD);
    expect([c.workerRenderPort, c.renderSecret]).toEqual([8082, secret]);
    expect(() => parseConfig({ OSPREY_RENDER_PORT: "8082" }, CWD)).toThrow(
      /^invalid configuration: OSPREY_RENDERER_SECRET \(at least 32 characters\) is required when OSPREY_RENDER_PORT is set$/,
    );
    expect(() => parseConfig({ OSPREY_RENDER_PORT: "8082", OSPREY_RENDERER_SECRET: "short" }, CWD)).toThrow(
      /OSPREY_RENDERER_SECRET/,
    );
    expect(() => parseConfig({ OSPREY_RENDER_PORT: "0", OSPREY_RENDERER_SECRET: secret }, CWD)).toThrow(
      /OSPREY_RENDER_PORT must be an integer between 1 and 65535/,
    );
  });

  it("parses OSPREY_FETCH_NEVER_EXPIRE_HOSTS into lower-case hosts and rejects bad entries", () => {
    expect(
      parseConfig({ OSPREY_FETCH_NEVER_EXPIRE_HOSTS: " Docs.Example.com , example.org. ," }, CWD).fetchNeverExpireHosts,
    ).toEqual(["docs.example.com", "example.org"]);
    expect(() => parseConfig({ OSPREY_FETCH_NEVER_EXPIRE_HOSTS: "ok.example,bad host" }, CWD)).toThrow(
      /OSPREY_FETCH_NEVER_EXPIRE_HOSTS has an invalid host "bad host"/,
    );
  });

  it("treats empty and blank strings as unset", () => {
    const blank = Object.fromEntries(
      [
        "PORT",
        "HOST",
        "OSPREY_DATA_DIR",
        "DATABASE_URL",
        "OSPREY_DB_DRIVER",
        "OSPREY_NEON_WS_PROXY",
        "OSPREY_ALLOW_PRIVATE_HOSTS",
        "OSPREY_LOG_LEVEL",
        "OSPREY_SHUTDOWN_TIMEOUT_MS",
        "CHROME_PATH",
        "OSPREY_LLM_PROVIDER",
        "OSPREY_LLM_BASE_URL",
        "OSPREY_LLM_MODEL",
        "OSPREY_LLM_API_KEY",
        "OSPREY_BLOB_STORE",
        "OSPREY_S3_BUCKET",
        "OSPREY_S3_PREFIX",
        "OSPREY_S3_ENDPOINT",
        "OSPREY_HEALTH_PORT",
      ].map((name, i) => [name, i % 2 ? "" : "  "]),
    );
    expect(parseConfig(blank, CWD)).toEqual(parseConfig({}, CWD));
  });

  it.each([
    ["relative", "data", "/srv/osprey/data"],
    ["nested relative", "../shared/osprey", "/srv/shared/osprey"],
    ["absolute", "/var/lib/osprey", "/var/lib/osprey"],
  ])("resolves a %s OSPREY_DATA_DIR against cwd", (_, dir, resolved) => {
    const c = parseConfig({ OSPREY_DATA_DIR: dir }, CWD);
    expect(c.dataDir).toBe(resolved);
    expect(c.database).toEqual({ driver: "pglite", dataDir: `${resolved}/pglite` });
  });

  it.each([
    [{ PORT: "0" }, { port: 0 }],
    [{ PORT: "65535" }, { port: 65535 }],
    [{ HOST: "0.0.0.0" }, { host: "0.0.0.0" }],
    [{ OSPREY_LOG_LEVEL: "debug" }, { logLevel: "debug" }],
    [{ OSPREY_SHUTDOWN_TIMEOUT_MS: "0" }, { shutdownTimeoutMs: 0 }],
    [{ CHROME_PATH: "/usr/bin/chromium" }, { chromePath: "/usr/bin/chromium" }],
    [
      { OSPREY_LLM_PROVIDER: "openai", OSPREY_LLM_BASE_URL: "http://127.0.0.1:11434/v1", OSPREY_LLM_MODEL: "m" },
      { model: { provider: "openai", baseUrl: "http://127.0.0.1:11434/v1", model: "m", apiKey: null } },
    ],
    [{ OSPREY_LLM_PROVIDER: "anthropic" }, { model: { provider: "anthropic", baseUrl: null, model: null, apiKey: null } }],
  ])("accepts %o", (env, expected) => {
    expect(parseConfig(env, CWD)).toMatchObject(expected);
  });

  it.each([
    [{ DATABASE_URL: "postgres://u:p@db:5432/osprey" }, { driver: "pg", url: "postgres://u:p@db:5432/osprey" }],
    [{ DATABASE_URL: "postgresql://db/osprey" }, { driver: "pg", url: "postgresql://db/osprey" }],
    [
      { DATABASE_URL: "postgres://db/o", OSPREY_DB_DRIVER: "pg" },
      { driver: "pg", url: "postgres://db/o" },
    ],
    [
      { DATABASE_URL: "postgres://db/o", OSPREY_DB_DRIVER: "neon" },
      { driver: "neon", url: "postgres://db/o", wsProxy: null },
    ],
    [
      { DATABASE_URL: "postgres://db/o", OSPREY_DB_DRIVER: "neon", OSPREY_NEON_WS_PROXY: "127.0.0.1:9000/v2" },
      { driver: "neon", url: "postgres://db/o", wsProxy: "127.0.0.1:9000/v2" },
    ],
    [
      { DATABASE_URL: "postgres://db/o", OSPREY_DB_DRIVER: "pglite" },
      { driver: "pglite", dataDir: "/srv/osprey/.osprey/pglite" },
    ],
    [{ DATABASE_URL: "" }, { driver: "pglite", dataDir: "/srv/osprey/.osprey/pglite" }],
  ])("chooses the database for %o", (env, database) => {
    expect(parseConfig(env, CWD).database).toEqual(database);
  });

  it.each([
    [{ PORT: "abc" }, "PORT"],
    [{ PORT: "-1" }, "PORT"],
    [{ PORT: "65536" }, "PORT"],
    [{ PORT: "1.5" }, "PORT"],
    [{ HOST: "x", DATABASE_URL: "mysql://x" }, "DATABASE_URL"],
    [{ DATABASE_URL: "postgres://" }, "DATABASE_URL"],
    [{ OSPREY_DB_DRIVER: "sqlite" }, "OSPREY_DB_DRIVER"],
    [{ OSPREY_DB_DRIVER: "neon" }, "DATABASE_URL"],
    [{ OSPREY_DB_DRIVER: "pg", DATABASE_URL: " " }, "DATABASE_URL"],
    [{ OSPREY_LOG_LEVEL: "loud" }, "OSPREY_LOG_LEVEL"],
    [{ OSPREY_SHUTDOWN_TIMEOUT_MS: "-5" }, "OSPREY_SHUTDOWN_TIMEOUT_MS"],
    [{ OSPREY_SHUTDOWN_TIMEOUT_MS: "soon" }, "OSPREY_SHUTDOWN_TIMEOUT_MS"],
    [{ OSPREY_SHUTDOWN_TIMEOUT_MS: "600001" }, "OSPREY_SHUTDOWN_TIMEOUT_MS"],
    [{ OSPREY_LLM_PROVIDER: "foo" }, "OSPREY_LLM_PROVIDER"],
    [{ OSPREY_LLM_BASE_URL: "http://127.0.0.1:11434" }, "OSPREY_LLM_PROVIDER"],
    [{ OSPREY_LLM_PROVIDER: "openai", OSPREY_LLM_BASE_URL: "ftp://x" }, "OSPREY_LLM_BASE_URL"],
    [{ OSPREY_ALLOW_PRIVATE_HOSTS: "ok.lan, bad host" }, "OSPREY_ALLOW_PRIVATE_HOSTS"],
  ])("rejects %o with a one-line message naming %s", (env, variable) => {
    const err = configError(env);
    expect(err.message).not.toContain("\n");
    expect(err.message).toMatch(/^invalid configuration: /);
    expect(err.message).toContain(variable);
  });

  it("says what a bad value was, except for secrets", () => {
    expect(configError({ PORT: "abc" }).message).toBe(
      'invalid configuration: PORT must be an integer between 0 and 65535 (got "abc")',
    );
    expect(configError({ OSPREY_ALLOW_PRIVATE_HOSTS: "ok.lan, bad host" }).message).toContain('"bad host"');
    for (const url of ["mysql://admin:hunter2secret@db/x", "postgres://admin:hunter2secret@db:port/x"]) {
      const message = configError({ DATABASE_URL: url }).message;
      expect(message).toContain("DATABASE_URL");
      expect(message).not.toContain("hunter2secret");
    }
    const model = configError({ OSPREY_LLM_PROVIDER: "openai", OSPREY_LLM_API_KEY: "  ", OSPREY_LLM_BASE_URL: "nope" });
    expect(model.message).toContain("OSPREY_LLM_BASE_URL");
  });
});

describe("OSPREY_ALLOW_PRIVATE_HOSTS", () => {
  const parse = (v: string) => parseConfig({ OSPREY_ALLOW_PRIVATE_HOSTS: v }, CWD).allowPrivateHosts;

  it.each<[string, AllowedHost[]]>([
    ["localhost", [{ host: "localhost", port: null }]],
    ["localhost:8080", [{ host: "localhost", port: 8080 }]],
    ["db.internal.:5432", [{ host: "db.internal", port: 5432 }]],
    ["Intranet.Example.COM", [{ host: "intranet.example.com", port: null }]],
    ["[::1]:8080", [{ host: "::1", port: 8080 }]],
    ["[::1]", [{ host: "::1", port: null }]],
    ["::1", [{ host: "::1", port: null }]],
    ["fd00::a:1", [{ host: "fd00::a:1", port: null }]],
    ["10.0.0.5", [{ host: "10.0.0.5", port: null }]],
    ["192.168.1.10:65535", [{ host: "192.168.1.10", port: 65535 }]],
    [
      " a.lan , b.lan:81 ,c ",
      [
        { host: "a.lan", port: null },
        { host: "b.lan", port: 81 },
        { host: "c", port: null },
      ],
    ],
    [
      ",a,, ,b:1,",
      [
        { host: "a", port: null },
        { host: "b", port: 1 },
      ],
    ],
    ["", []],
  ])("parses %j", (value, expected) => {
    expect(parse(value)).toEqual(expected);
  });

  it.each([
    "host:0",
    "host:99999",
    "host:",
    "host:8o",
    "bad host",
    "http://x",
    "a:b:c",
    "[a:b]",
    "[zz]",
    "[::1]x",
    "[::1]:0",
    "-lead.lan",
  ])("rejects the entry %j", (entry) => {
    expect(parseAllowedHost(entry)).toBeNull();
    const err = configError({ OSPREY_ALLOW_PRIVATE_HOSTS: `ok.lan,${entry}` });
    expect(err.message).toContain("OSPREY_ALLOW_PRIVATE_HOSTS");
    expect(err.message).toContain(entry);
  });

  describe("isPrivateHostAllowed", () => {
    const config = { allowPrivateHosts: parse("intranet.lan, db.lan:5432, [::1]:8080, 10.0.0.5") };
    it.each<[string, number, boolean]>([
      ["intranet.lan", 80, true],
      ["intranet.lan", 65535, true],
      ["INTRANET.lan.", 443, true],
      ["www.intranet.lan", 80, false],
      ["lan", 80, false],
      ["intranet.lan.evil.com", 80, false],
      ["db.lan", 5432, true],
      ["db.lan", 5433, false],
      ["db.lan", 80, false],
      ["x.db.lan", 5432, false],
      ["[::1]", 8080, true],
      ["::1", 8080, true],
      ["[::1]", 8081, false],
      ["10.0.0.5", 9000, true],
      ["10.0.0.6", 9000, false],
      ["localhost", 80, false],
    ])("%s port %i → %s", (host, port, allowed) => {
      expect(isPrivateHostAllowed(config, host, port)).toBe(allowed);
    });

    it("allows nothing when the list is empty", () => {
      expect(isPrivateHostAllowed({ allowPrivateHosts: [] }, "localhost", 80)).toBe(false);
    });
  });
});
