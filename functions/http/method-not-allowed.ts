import type { Hono } from "hono";

interface RouteInfo {
  method: string;
  path: string;
}

/** Hono path pattern → RegExp (`:id`, `:id{re}`, `*`). */
function patternToRegExp(pattern: string): RegExp {
  let re = "";
  for (const part of pattern.split("/").filter(Boolean)) {
    if (part === "*") re += "(?:/.*)?";
    else if (part.startsWith(":")) {
      const custom = /\{(.+)\}$/.exec(part);
      re += `/${custom ? `(?:${custom[1]})` : "[^/]+"}`;
    } else re += `/${part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`;
  }
  // Exact, like Hono's router: a trailing slash is another path (404), not another method (405).
  return new RegExp(`^${re || "/"}$`);
}

/**
 * Knows which methods each registered path answers, so an unmatched request can be told apart:
 * a known path with another method is 405 (with Allow), anything else 404. Middleware entries
 * (method ALL) are not routes and are ignored.
 */
export function methodIndex(app: Pick<Hono, "routes">): (path: string) => string[] {
  const byPattern = new Map<string, Set<string>>();
  for (const r of app.routes as RouteInfo[]) {
    if (r.method === "ALL") continue;
    const set = byPattern.get(r.path) ?? new Set<string>();
    set.add(r.method);
    if (r.method === "GET") set.add("HEAD");
    byPattern.set(r.path, set);
  }
  const compiled = [...byPattern].map(([pattern, methods]) => ({ re: patternToRegExp(pattern), methods }));
  return (path: string) => {
    const allowed = new Set<string>();
    for (const { re, methods } of compiled) if (re.test(path)) for (const m of methods) allowed.add(m);
    return [...allowed].sort();
  };
}
