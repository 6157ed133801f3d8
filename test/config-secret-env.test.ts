import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../functions/config/config.ts";
import { scalerConfig } from "../functions/config/config-scaler.ts";
import { databaseUrlFromSecret, resolveSecretEnv } from "../functions/config/secret-env.ts";

/**
 * DATABASE_URL from RDS's generated secret (infra `-c database=rds`): the JSON RDS keeps
 * ({"username","password","host","port","dbname","engine",…}) becomes a verify-full URL, on the
 * Lambda path (resolveSecretEnv, naming the secret) and the container path (ECS injects the JSON,
 * parseConfig converts it). A malformed secret says which and what, and never shows the password.
 */

const ARN = "arn:aws:secretsmanager:us-east-1:123456789012:secret:osprey/database-AbCdEf";
const PASSWORD = "p@ss:w/rd?#%&=+ with space";
const rds = {
  engine: "postgres",
  username: "osprey_admin",
  password: PASSWORD,
  host: "osprey-db.abcdefghij.us-east-1.rds.amazonaws.com",
  port: 5432,
  dbname: "osprey",
  dbInstanceIdentifier: "osprey-db",
};

describe("databaseUrlFromSecret", () => {
  it("builds a verify-full URL from RDS's JSON, every part encoded, and the URL parses back to the same values", () => {
    const url = databaseUrlFromSecret(JSON.stringify(rds), "its secret");
    const u = new URL(url);
    expect(u.protocol).toBe("postgres:");
    expect(decodeURIComponent(u.username)).toBe("osprey_admin");
    expect(decodeURIComponent(u.password)).toBe(PASSWORD);
    expect(u.hostname).toBe(rds.host);
    expect(u.port).toBe("5432");
    expect(u.pathname).toBe("/osprey");
    expect(u.searchParams.get("sslmode")).toBe("verify-full");
  });

  it("passes a URL through unchanged; the port may be a string; dbname defaults to postgres", () => {
    expect(databaseUrlFromSecret("postgres://u:p@h:5432/d?sslmode=require", "x")).toBe("postgres://u:p@h:5432/d?sslmode=require");
    const url = new URL(databaseUrlFromSecret(JSON.stringify({ ...rds, port: "6543", dbname: undefined }), "x"));
    expect(url.port).toBe("6543");
    expect(url.pathname).toBe("/postgres");
  });

  it.each([
    ["not JSON", `{"username":"osprey_admin","password":"${PASSWORD}",`, /not valid JSON/],
    ["no host", JSON.stringify({ ...rds, host: undefined }), /host missing/],
    ["an empty password", JSON.stringify({ ...rds, password: "" }), /password missing/],
    ["another engine", JSON.stringify({ ...rds, engine: "mysql" }), /engine is not postgres/],
    ["a bad port", JSON.stringify({ ...rds, port: 70000 }), /port is not a port number/],
    ["a host with a path", JSON.stringify({ ...rds, host: "evil.example/x?" }), /host is not a host name/],
    ["an unknown sslmode", JSON.stringify({ ...rds, sslmode: "prefer" }), /sslmode is not one of/],
  ])("refuses %s, naming the secret and never the password", (_what, value, why) => {
    let caught: unknown;
    try {
      databaseUrlFromSecret(value, `its secret (${ARN})`);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(Error);
    const e = caught as Error;
    expect(e.message).toMatch(why);
    expect(e.message).toContain(ARN);
    expect(e.message).not.toContain(PASSWORD);
    expect(String(e.cause ?? "")).not.toContain(PASSWORD);
    expect(e.stack ?? "").not.toContain(PASSWORD);
  });

  it("an empty object names every missing field; leading space is still JSON", () => {
    expect(() => databaseUrlFromSecret("{}", "s")).toThrow(/username, password, host missing/);
    expect(() => databaseUrlFromSecret(' {"a":1', "s")).toThrow(/not valid JSON/);
  });
});

describe("resolveSecretEnv with RDS's JSON", () => {
  it("sets DATABASE_URL to the URL built from the secret and leaves other secrets as they are", async () => {
    const other = "arn:aws:secretsmanager:us-east-1:123456789012:secret:osprey/vault-key-AbCdEf";
    const env = await resolveSecretEnv({ OSPREY_SECRET_ENV: `DATABASE_URL=${ARN},OSPREY_VAULT_KEY=${other}` }, async (id) =>
      id === ARN ? JSON.stringify(rds) : '{"not":"converted"}',
    );
    expect(new URL(env.DATABASE_URL ?? "").hostname).toBe(rds.host);
    expect(env.OSPREY_VAULT_KEY).toBe('{"not":"converted"}');
  });

  it("a malformed secret fails naming the variable and the secret's ARN, without its value", async () => {
    const err = await resolveSecretEnv({ OSPREY_SECRET_ENV: `DATABASE_URL=${ARN}` }, async () =>
      JSON.stringify({ ...rds, host: "" }),
    ).catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/^DATABASE_URL from its secret \(arn:aws:secretsmanager:.*host missing/);
    expect((err as Error).message).not.toContain(PASSWORD);
  });
});

describe("parseConfig with DATABASE_URL holding RDS's JSON (ECS injects the secret's value)", () => {
  it("opens pg with the verify-full URL", () => {
    const config = parseConfig({ DATABASE_URL: JSON.stringify(rds) }, "/tmp");
    expect(config.database.driver).toBe("pg");
    const url = config.database.driver === "pg" ? new URL(config.database.url) : null;
    expect(url?.hostname).toBe(rds.host);
    expect(url?.searchParams.get("sslmode")).toBe("verify-full");
  });

  it("a malformed one is a ConfigError that names DATABASE_URL and not the password", () => {
    let caught: unknown;
    try {
      parseConfig({ DATABASE_URL: `{"username":"u","password":"${PASSWORD}"` }, "/tmp");
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as Error).message).toMatch(/^invalid configuration: DATABASE_URL from the environment: .*not valid JSON/);
    expect((caught as Error).message).not.toContain(PASSWORD);
  });
});

describe("the scaler's database driver", () => {
  const base = { OSPREY_SCALER_CLUSTER: "c", OSPREY_SCALER_SERVICE: "s", OSPREY_SQS_QUEUE_URL: "https://sqs.example/q" };
  it("is Neon unless OSPREY_DB_DRIVER=pg (RDS); anything else names the variable", () => {
    expect(scalerConfig(base).dbDriver).toBe("neon");
    expect(scalerConfig({ ...base, OSPREY_DB_DRIVER: "pg" }).dbDriver).toBe("pg");
    expect(() => scalerConfig({ ...base, OSPREY_DB_DRIVER: "pglite" })).toThrow(/OSPREY_DB_DRIVER must be neon or pg/);
  });
});
