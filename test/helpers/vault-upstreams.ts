import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * Local stand-ins for the external password providers on 127.0.0.1, each speaking its API's JSON:
 * a 1Password Connect server (Bearer token, /v1/vaults…) and the Bitwarden CLI's `bw serve`
 * (/list/object/…, /object/item/{id}, `{success, data}` envelopes, 400 `{success: false,
 * message}` refusals). Their data is plain arrays the tests may change between calls; every
 * request is recorded; each can be switched to misbehave.
 */

export type Behaviour =
  | { kind: "ok" }
  /** Answers normally after `delayMs`. */
  | { kind: "slow"; delayMs: number }
  /** Answers `status` with the provider's own error body. */
  | { kind: "status"; status: number }
  /** 200 with a JSON content type and a body that is not JSON. */
  | { kind: "invalid-json" }
  /** 200 with a body of the caller's choosing. */
  | { kind: "body"; body: unknown }
  /** Closes the connection without an answer. */
  | { kind: "hang-up" }
  /** Redirects every request to `location`. */
  | { kind: "redirect"; location: string };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
}

interface Answer {
  status: number;
  body: unknown;
}

interface Stub {
  url: string;
  requests: RecordedRequest[];
  behave(behaviour: Behaviour): void;
  close(): Promise<void>;
}

async function startStub(handle: (req: RecordedRequest) => Answer, errorBody: (status: number) => unknown): Promise<Stub> {
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let behaviour: Behaviour = { kind: "ok" };

  const send = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
    if (res.destroyed) return;
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
    res.end(body);
  };
  const answer = (req: RecordedRequest, res: ServerResponse, current: Behaviour) => {
    if (current.kind === "hang-up") return res.socket?.destroy();
    if (current.kind === "redirect") return send(res, 302, "", { location: current.location });
    if (current.kind === "status") return send(res, current.status, JSON.stringify(errorBody(current.status)));
    if (current.kind === "invalid-json") return send(res, 200, '{"success": true, "data": [{"id": "x');
    if (current.kind === "body") return send(res, 200, JSON.stringify(current.body));
    const a = handle(req);
    send(res, a.status, JSON.stringify(a.body));
  };

  const server = createServer((req, res) => {
    const recorded = {
      method: req.method ?? "GET",
      path: decodeURI(new URL(req.url ?? "/", "http://stub").pathname),
      headers: req.headers,
    };
    requests.push(recorded);
    const current = behaviour;
    if (current.kind === "slow") {
      const timer = setTimeout(() => {
        timers.delete(timer);
        answer(recorded, res, { kind: "ok" });
      }, current.delayMs);
      timers.add(timer);
      return;
    }
    answer(recorded, res, current);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    behave(next) {
      behaviour = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// 1Password Connect

export interface ConnectField {
  id: string;
  type: string;
  purpose?: "USERNAME" | "PASSWORD" | "NOTES";
  label?: string;
  value?: string;
  section?: { id: string };
}

export interface ConnectItem {
  id: string;
  title: string;
  category: string;
  urls?: { href: string; primary?: boolean; label?: string }[];
  tags?: string[];
  state?: "ARCHIVED" | "DELETED";
  fields: ConnectField[];
}

export interface ConnectVault {
  id: string;
  name: string;
  items: ConnectItem[];
}

export interface ConnectStub extends Stub {
  vaults: ConnectVault[];
  /** The token the server accepts; change it to refuse the one a connection holds. */
  token: string;
}

const STAMP = "2025-03-01T10:00:00Z";

/** The summary GET /v1/vaults/{id}/items gives: no fields. */
function connectSummary(vaultId: string, item: ConnectItem) {
  return {
    id: item.id,
    title: item.title,
    version: 3,
    vault: { id: vaultId },
    category: item.category,
    urls: item.urls ?? [],
    favorite: false,
    tags: item.tags ?? [],
    ...(item.state ? { state: item.state } : {}),
    lastEditedBy: "DOHTHI6PDVEXVBQHNB5VTYDNRA",
    createdAt: STAMP,
    updatedAt: STAMP,
  };
}

/** The full item: its fields with values (an OTP field also carries its current code, as Connect adds one). */
function connectFullItem(vaultId: string, item: ConnectItem) {
  return {
    ...connectSummary(vaultId, item),
    sections: [{ id: "add more" }],
    // A test may plant a malformed `fields`: it goes out as it is.
    fields: Array.isArray(item.fields) ? item.fields.map((f) => (f.type === "OTP" ? { ...f, totp: "123456" } : f)) : item.fields,
  };
}

/**
 * A 1Password Connect server: 401 unless `Authorization: Bearer <token>`; its 401 body quotes the
 * token it got (as a careless proxy might), so tests can check that no message repeats it.
 */
export async function startConnect(opts: { token: string; vaults: ConnectVault[] }): Promise<ConnectStub> {
  // The handler reads the returned object, so that a test's changes to it apply to the next request.
  let state: { token: string; vaults: ConnectVault[] } = opts;
  const error = (status: number, message: string) => ({ status, body: { status, message } });
  const stub = await startStub(
    (req) => {
      const auth = String(req.headers.authorization ?? "");
      if (auth !== `Bearer ${state.token}`) return error(401, `Invalid token signature for "${auth.replace(/^Bearer /, "")}"`);
      const parts = req.path.split("/").filter(Boolean);
      if (req.method !== "GET" || parts[0] !== "v1" || parts[1] !== "vaults") return error(404, "Not found");
      if (parts.length === 2) {
        return {
          status: 200,
          body: state.vaults.map((v) => ({
            id: v.id,
            name: v.name,
            description: "",
            attributeVersion: 1,
            contentVersion: 7,
            items: v.items.length,
            type: "USER_CREATED",
            createdAt: STAMP,
            updatedAt: STAMP,
          })),
        };
      }
      const vault = state.vaults.find((v) => v.id === parts[2]);
      if (!vault) return error(404, "vault not found");
      if (parts.length === 4 && parts[3] === "items")
        return { status: 200, body: vault.items.map((i) => connectSummary(vault.id, i)) };
      if (parts.length === 5 && parts[3] === "items") {
        const item = vault.items.find((i) => i.id === parts[4]);
        return item ? { status: 200, body: connectFullItem(vault.id, item) } : error(404, "item not found");
      }
      return error(404, "Not found");
    },
    (status) => ({ status, message: status === 401 ? "Invalid token signature" : "Internal Server Error" }),
  );
  const self: ConnectStub = Object.assign(stub, { token: opts.token, vaults: opts.vaults });
  state = self;
  return self;
}

// ---------------------------------------------------------------------------------------------
// Bitwarden `bw serve`

export interface BwField {
  name: string;
  value: string | null;
  /** 0 text, 1 hidden, 2 boolean, 3 linked. */
  type: number;
  linkedId?: number | null;
}

export interface BwItem {
  id: string;
  /** 1 login, 2 secure note, 3 card, 4 identity, 5 SSH key. */
  type: number;
  name: string;
  folderId: string | null;
  login?: {
    username: string | null;
    password: string | null;
    totp: string | null;
    uris?: { match: number | null; uri: string }[];
  };
  fields?: BwField[];
  notes?: string | null;
  card?: Record<string, string | null>;
  secureNote?: { type: number };
}

export interface BwFolder {
  id: string;
  name: string;
}

export interface BwStub extends Stub {
  items: BwItem[];
  folders: BwFolder[];
  /** A locked vault answers every vault call 400 "Vault is locked." */
  locked: boolean;
}

/** What bw adds to every item it lists. */
function bwItem(item: BwItem) {
  return {
    passwordHistory: null,
    revisionDate: STAMP,
    creationDate: STAMP,
    deletedDate: null,
    archivedDate: null,
    object: "item",
    organizationId: null,
    collectionIds: [],
    reprompt: 0,
    favorite: false,
    notes: null,
    ...item,
    ...(item.login ? { login: { fido2Credentials: [], passwordRevisionDate: null, uris: [], ...item.login } } : {}),
  };
}

/**
 * `bw serve`: no token of its own; with `token` set it stands for a proxy in front of it that
 * answers 401 to any other Bearer token (or none).
 */
export async function startBwServe(opts: { items: BwItem[]; folders: BwFolder[]; token?: string }): Promise<BwStub> {
  let state: { items: BwItem[]; folders: BwFolder[]; locked: boolean } = { ...opts, locked: false };
  const refuse = (message: string) => ({ status: 400, body: { success: false, message } });
  const ok = (data: unknown) => ({ status: 200, body: { success: true, data } });
  const stub = await startStub(
    (req) => {
      if (opts.token !== undefined && req.headers.authorization !== `Bearer ${opts.token}`) {
        return { status: 401, body: { message: "Unauthorized" } };
      }
      if (req.method !== "GET") return { status: 405, body: "Method Not Allowed" };
      if (state.locked) return refuse("Vault is locked.");
      if (req.path === "/list/object/items") return ok({ object: "list", data: state.items.map(bwItem) });
      if (req.path === "/list/object/folders") {
        const folders = [
          ...state.folders.map((f) => ({ object: "folder", ...f })),
          { object: "folder", id: null, name: "No Folder" },
        ];
        return ok({ object: "list", data: folders });
      }
      const m = /^\/object\/item\/([^/]+)$/.exec(req.path);
      if (m) {
        const item = state.items.find((i) => i.id === m[1]);
        return item ? ok(bwItem(item)) : refuse("Not found.");
      }
      return { status: 404, body: "Not Found" };
    },
    (status) => (status === 401 ? { message: "Unauthorized" } : { success: false, message: "An error occurred." }),
  );
  const self: BwStub = Object.assign(stub, { items: opts.items, folders: opts.folders, locked: false });
  state = self;
  return self;
}
