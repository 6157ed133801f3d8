/**
 * An item's id on the wire (spec 2.2): `cred:<connection_id>:<vault_name>:<item_id>`. Connection
 * ids (`vc_…`) and item ids carry no colon, so a vault name that does (an external provider's) is
 * still read back whole: it is everything between the second and the last colon.
 */

export interface ItemRef {
  connectionId: string;
  vaultName: string;
  itemId: string;
}

export function formatItemId(ref: ItemRef): string {
  return `cred:${ref.connectionId}:${ref.vaultName}:${ref.itemId}`;
}

/** The parts of a `cred:` id, or null when it is not one. */
export function parseItemId(value: string): ItemRef | null {
  if (!value.startsWith("cred:")) return null;
  const rest = value.slice("cred:".length);
  const first = rest.indexOf(":");
  const last = rest.lastIndexOf(":");
  if (first <= 0 || last === first || last === rest.length - 1) return null;
  const vaultName = rest.slice(first + 1, last);
  if (vaultName === "") return null;
  return { connectionId: rest.slice(0, first), vaultName, itemId: rest.slice(last + 1) };
}
