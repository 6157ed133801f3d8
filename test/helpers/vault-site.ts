import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { TotpSpec } from "../../functions/vault/providers/types.ts";
import { totpAt } from "../../functions/vault/totp.ts";

/**
 * A bank with a two-step login and a look-alike phishing site, on one 127.0.0.1 server told apart
 * by the Host header (the browser reaches the names through a resolver stub):
 * - `login.bank.test`: /login (username + password, POST) → /otp?user=… (a TOTP code, POST,
 *   checked against the seed with the adjacent windows) → /account ("Welcome, <username>").
 * - `bank-secure-login.test`: the same login form; whatever is posted to it is kept in `harvested`.
 * Like a React app, every input mirrors its value into its `value` attribute, so an HTML snapshot
 * of a filled form would hold what was typed.
 */

export const BANK_HOST = "login.bank.test";
export const PHISH_HOST = "bank-secure-login.test";

export interface VaultSite {
  port: number;
  url(host: string, path: string): string;
  /** Maps the site's names to 127.0.0.1 (every other name fails to resolve). */
  resolver(hostname: string): Promise<{ address: string; family: number }[]>;
  /** Request bodies the phishing site received. */
  harvested: string[];
  /** Codes posted to the bank's /otp, with whether they were accepted. */
  codes: { code: string; ok: boolean }[];
  /** Successful password logins at the bank. */
  logins: number;
  close(): Promise<void>;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}
<script>for (const i of document.querySelectorAll("input")) i.addEventListener("input", () => i.setAttribute("value", i.value));</script>
</body></html>`;

const loginForm = (bank: string, error = "") =>
  page(
    `${bank} sign in`,
    `<h1>${bank}</h1>${error ? `<p role="alert">${error}</p>` : ""}
<form method="post" action="/login">
  <label>Username <input name="username" autocomplete="username"></label>
  <label>Password <input type="password" name="password" autocomplete="current-password"></label>
  <button type="submit">Sign in</button>
</form>`,
  );

const otpForm = (user: string, error = "") =>
  page(
    "Two-step verification",
    `<h1>Two-step verification</h1><p>Enter the 6-digit code from your authenticator app.</p>${error ? `<p role="alert">${error}</p>` : ""}
<form method="post" action="/otp?user=${encodeURIComponent(user)}">
  <label>Code <input name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="8"></label>
  <button type="submit">Verify</button>
</form>`,
  );

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startVaultSite(login: { username: string; password: string; totp: TotpSpec }): Promise<VaultSite> {
  const harvested: string[] = [];
  const codes: { code: string; ok: boolean }[] = [];
  const sessions = new Set<string>();
  let logins = 0;

  const send = (res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "text/html; charset=utf-8", ...headers });
    res.end(html);
  };
  const redirect = (res: ServerResponse, location: string, headers: Record<string, string> = {}) => {
    res.writeHead(303, { location, ...headers });
    res.end();
  };
  const validCode = (code: string) => {
    const now = Date.now();
    const step = login.totp.period * 1000;
    return [now - step, now, now + step].some((t) => totpAt(login.totp, new Date(t)) === code);
  };

  const server = createServer(async (req, res) => {
    const host = (req.headers.host ?? "").split(":")[0];
    const url = new URL(req.url ?? "/", "http://x");
    const form = req.method === "POST" ? new URLSearchParams(await bodyOf(req)) : null;
    if (host === PHISH_HOST) {
      if (form) harvested.push(form.toString());
      return url.pathname === "/login" ? send(res, 200, loginForm("Bank", form ? "Please try again" : "")) : send(res, 404, "");
    }
    if (host !== BANK_HOST) return send(res, 421, "unknown site");
    const user = url.searchParams.get("user") ?? "";
    switch (`${req.method} ${url.pathname}`) {
      case "GET /login":
        return send(res, 200, loginForm("Bank"));
      case "POST /login": {
        if (form?.get("username") !== login.username || form?.get("password") !== login.password) {
          return send(res, 200, loginForm("Bank", "Wrong username or password"));
        }
        logins++;
        // The user name travels in the URL, as many sites do: the run must not record it.
        return redirect(res, `/otp?user=${encodeURIComponent(login.username)}`);
      }
      case "GET /otp":
        return send(res, 200, otpForm(user));
      case "POST /otp": {
        const code = form?.get("code") ?? "";
        const ok = user === login.username && validCode(code);
        codes.push({ code, ok });
        if (!ok) return send(res, 200, otpForm(user, "That code is not valid"));
        const sid = randomBytes(8).toString("hex");
        sessions.add(sid);
        return redirect(res, "/account", { "set-cookie": `sid=${sid}; Path=/; HttpOnly` });
      }
      case "GET /account": {
        const sid = /(?:^|;\s*)sid=([0-9a-f]+)/.exec(req.headers.cookie ?? "")?.[1];
        if (!sid || !sessions.has(sid)) return redirect(res, "/login");
        return send(
          res,
          200,
          page("Account", `<h1>Welcome, ${escapeHtml(login.username)}</h1><p>Your balance is 1,234.56 EUR.</p>`),
        );
      }
      default:
        return send(res, 404, page("Not found", "<h1>Not found</h1>"));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: (host, path) => `http://${host}:${port}${path}`,
    resolver: async (hostname) => {
      if (hostname === BANK_HOST || hostname === PHISH_HOST) return [{ address: "127.0.0.1", family: 4 }];
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    },
    harvested,
    codes,
    get logins() {
      return logins;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
