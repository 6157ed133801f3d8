import type { StorageItems } from "./profile-data.ts";

/**
 * The script that loads a profile's localStorage into a context (see profile-agent.ts for when it
 * is registered and withdrawn). It runs on every new document of the context, so it is small and
 * does nothing for an origin it has no items for.
 */

/** The isolated world the loader runs in (never the page's own world: the site cannot see or change it). */
export const LOADER_WORLD = "osprey-profile";

/** Per origin: its scheme and registrable domain (to tell a first-party document) and its items. */
export type PendingStorage = Map<string, { scheme: string; site: string; items: StorageItems }>;

/**
 * The loader: for the document's origin, the profile's items, written only into first-party
 * storage that is still empty. Runs in an isolated world (LOADER_WORLD) before any script of the page; `URL` and `localStorage`
 * there are the isolated world's own bindings, out of the site's reach.
 */
export function loaderSource(pending: PendingStorage): string | null {
  if (pending.size === 0) return null;
  const table = Object.fromEntries([...pending].map(([origin, p]) => [origin, [p.scheme, p.site, p.items]]));
  return `(() => {
  const table = ${JSON.stringify(table)};
  const origin = location.origin;
  if (!Object.hasOwn(table, origin)) return;
  const [scheme, site, items] = table[origin];
  const sameSite = (o) => {
    try {
      const u = new URL(o);
      return u.protocol === scheme && (u.hostname === site || u.hostname.endsWith("." + site));
    } catch {
      return false;
    }
  };
  const ancestors = location.ancestorOrigins;
  for (let i = 0; i < ancestors.length; i++) if (!sameSite(ancestors[i])) return;
  let storage;
  try {
    storage = localStorage;
  } catch {
    return;
  }
  if (storage.length !== 0) return;
  for (const [key, value] of items) {
    try {
      storage.setItem(key, value);
    } catch {
      return;
    }
  }
})();`;
}
