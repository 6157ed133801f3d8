import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSurfaceApp } from "../../functions/app.ts";
import { defaultIds } from "../../functions/lib/ids.ts";
import { silentLogger } from "../../functions/lib/logger.ts";
import { ERROR_CODES } from "../../schema/errors.ts";
import { createTestContext, type TestContext } from "../helpers/app.ts";
import { driverCases, type TestDatabase } from "../helpers/databases.ts";

/** The generated OpenAPI 3.1 documents and the reference page (spec 5: the only keyless paths). */

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is walked as plain JSON.
type Doc = any;

const DOCUMENTS = [
  { path: "/openapi.json", prefix: "/", title: "Osprey API" },
  { path: "/fetch/openapi.json", prefix: "/fetch", title: "Osprey fetch API" },
  { path: "/search/openapi.json", prefix: "/search", title: "Osprey search API" },
  { path: "/browser/openapi.json", prefix: "/browser", title: "Osprey browser session API" },
];
const HTTP_METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];
const ERROR_BODY_REF = "#/components/schemas/ErrorBody";

function operations(doc: Doc): { id: string; op: Doc }[] {
  return Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item as Doc)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, op]) => ({ id: `${method.toUpperCase()} ${path}`, op })),
  );
}

/** Every "$ref" string anywhere in the document. */
function refs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const v of node) refs(v, out);
  else if (node && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      if (k === "$ref" && typeof v === "string") out.push(v);
      else refs(v, out);
    }
  }
  return out;
}

describe.each(driverCases(["pglite"]))("OpenAPI documents on $driver", ({ open }) => {
  let db: TestDatabase;
  let ctx: TestContext;
  let combined: Doc;
  beforeAll(async () => {
    db = await open();
    ctx = createTestContext(db.db);
    combined = await (await ctx.app.request("/openapi.json")).json();
  });
  afterAll(() => db.dispose());

  describe("public paths", () => {
    it.each([...DOCUMENTS.map((d) => d.path), "/docs", "/healthz"])("%s is readable without a key", async (path) => {
      const res = await ctx.app.request(path);
      expect(res.status, await res.clone().text()).toBe(200);
      expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    });

    it.each(DOCUMENTS.map((d) => d.path))("%s ignores a bad key instead of rejecting it", async (path) => {
      expect((await ctx.call("osk_not_a_real_key", path)).status).toBe(200);
    });

    it("/docs is an HTML page that loads /openapi.json", async () => {
      const res = await ctx.app.request("/docs");
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      const html = await res.text();
      expect(html).toMatch(/<html/i);
      expect(html).toContain("/openapi.json");
    });

    it("nothing next to the public paths is public", async () => {
      for (const path of ["/openapi.yaml", "/docs/x", "/fetch/docs", "/v1/openapi.json", "/OPENAPI.JSON"]) {
        expect((await ctx.app.request(path)).status, path).toBe(401);
      }
    });
  });

  describe.each(DOCUMENTS)("$path", ({ path, prefix, title }) => {
    let doc: Doc;
    beforeAll(async () => {
      const res = await ctx.app.request(path);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      doc = await res.json();
    });

    it("is OpenAPI 3.1 with its own title and server", () => {
      expect(doc.openapi).toMatch(/^3\.1\./);
      expect(doc.info).toMatchObject({ title, version: expect.any(String) });
      expect(doc.servers).toEqual([expect.objectContaining({ url: prefix })]);
    });

    it("declares the ApiKeyAuth header scheme and requires it globally", () => {
      expect(doc.components.securitySchemes.ApiKeyAuth).toMatchObject({ type: "apiKey", in: "header", name: "X-API-Key" });
      expect(doc.security).toEqual([{ ApiKeyAuth: [] }]);
      for (const { id, op } of operations(doc)) expect(op.security, id).toBeUndefined();
    });

    it("documents 401 and 500 with the ErrorBody schema on every operation", () => {
      for (const { id, op } of operations(doc)) {
        for (const status of ["401", "500"]) {
          expect(op.responses[status]?.content?.["application/json"]?.schema, `${id} ${status}`).toEqual({
            $ref: ERROR_BODY_REF,
          });
        }
        for (const [status, response] of Object.entries(op.responses as Record<string, Doc>)) {
          if (Number(status) >= 400) {
            expect(response.content["application/json"].schema.$ref, `${id} ${status}`).toBe(ERROR_BODY_REF);
            expect(response.headers?.["X-Request-ID"], `${id} ${status}`).toBeDefined();
          }
        }
      }
    });

    it("has no dangling $ref", () => {
      for (const ref of refs(doc)) {
        const name = ref.replace("#/components/schemas/", "");
        expect(doc.components?.schemas?.[name], ref).toBeDefined();
      }
    });
  });

  describe("the combined document", () => {
    it("ErrorCode enumerates exactly ERROR_CODES and ErrorBody uses it", () => {
      const { ErrorCode, ErrorBody } = combined.components.schemas;
      expect(ErrorCode.enum).toEqual([...ERROR_CODES]);
      expect(ErrorBody.required).toEqual(expect.arrayContaining(["error", "request_id"]));
      expect(ErrorBody.properties.error.properties.code).toEqual({ $ref: "#/components/schemas/ErrorCode" });
      expect(ErrorBody.properties.error.required).toEqual(expect.arrayContaining(["code", "message"]));
      expect(ErrorBody.properties.error.required).not.toContain("details");
    });

    it("documents GET /v1/account and the paginated GET /v1/api-keys", () => {
      expect(operations(combined).map((o) => o.id)).toEqual(expect.arrayContaining(["GET /v1/account", "GET /v1/api-keys"]));
      expect(combined.paths["/v1/account"]?.get?.responses?.["200"]).toBeDefined();
      const list = combined.paths["/v1/api-keys"]?.get;
      expect(list?.responses?.["400"]?.content?.["application/json"]?.schema).toEqual({ $ref: ERROR_BODY_REF });
      const params = Object.fromEntries((list?.parameters ?? []).map((p: Doc) => [p.name, p]));
      expect(params.limit).toMatchObject({ in: "query", schema: { minimum: 1, maximum: 1000, default: 100 } });
      expect(params.page).toMatchObject({ in: "query", schema: { minimum: 1, default: 1 } });
    });

    it("does not document the keyless infrastructure paths as API operations", () => {
      for (const path of ["/openapi.json", "/docs", "/healthz"]) expect(combined.paths[path]).toBeUndefined();
    });

    it("describes authentication, the error body and the surfaces not available yet", () => {
      const text = combined.info.description as string;
      for (const phrase of ["X-API-Key", "MISSING_API_KEY", "INVALID_API_KEY", "UNAUTHORIZED", "request_id", "1 MiB"]) {
        expect(text).toContain(phrase);
      }
      expect(text).toMatch(/Not available on this server yet:.*browser session API/s);
      expect(text).not.toMatch(/Not available on this server yet:.*search API/s);
      expect(combined.tags.map((t: { name: string }) => t.name)).toEqual(["agent", "fetch", "search", "browser"]);
    });
  });

  describe.each(["agent", "fetch", "search", "browser"] as const)("cloud mode: the %s surface at its host root", (name) => {
    it("serves its document and /docs without a key, and nothing else", async () => {
      const app = createSurfaceApp(
        { services: ctx.services, ids: defaultIds, logger: silentLogger, fetch: null, runs: ctx.runs },
        name,
      );
      const doc = await (await app.request("/openapi.json")).json();
      expect(doc).toMatchObject({ openapi: expect.stringMatching(/^3\.1\./), security: [{ ApiKeyAuth: [] }] });
      expect((await app.request("/docs")).status).toBe(200);
      const res = await app.request(name === "agent" ? "/v1/account" : "/usage");
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("MISSING_API_KEY");
    });
  });
});
