import { describe, expect, it } from "vitest";
import { ConfigError } from "../functions/config/config.ts";
import { parseCloudDevSettings } from "../functions/config/config-cloud-dev.ts";

/** `npm run dev:cloud` parses its own settings once, like the service: defaults, and one clear line for a bad value. */
describe("parseCloudDevSettings", () => {
  it("has defaults for an empty environment", () => {
    expect(parseCloudDevSettings({})).toEqual({
      basePort: 8790,
      workers: 2,
      databaseUrl: null,
      publicUrl: null,
      browserPublicUrl: null,
      awsAccessKeyId: "test",
      awsSecretAccessKey: "test",
    });
    expect(parseCloudDevSettings({ OSPREY_CLOUD_DEV_PORT: "0", OSPREY_CLOUD_DEV_WORKERS: " " })).toMatchObject({
      basePort: 0,
      workers: 2,
    });
    expect(parseCloudDevSettings({ OSPREY_BROWSER_PUBLIC_URL: "https://browser.example.com" })).toMatchObject({
      browserPublicUrl: "https://browser.example.com",
    });
  });

  it.each([
    ["OSPREY_CLOUD_DEV_PORT", "65533"],
    ["OSPREY_CLOUD_DEV_PORT", "-1"],
    ["OSPREY_CLOUD_DEV_PORT", "80.5"],
    ["OSPREY_CLOUD_DEV_WORKERS", "0"],
    ["OSPREY_CLOUD_DEV_WORKERS", "nine"],
  ])("refuses %s=%s naming the variable", (name, value) => {
    expect(() => parseCloudDevSettings({ [name]: value })).toThrow(ConfigError);
    expect(() => parseCloudDevSettings({ [name]: value })).toThrow(
      new RegExp(`^invalid configuration: ${name} must be an integer`),
    );
  });
});
