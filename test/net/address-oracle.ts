/**
 * The address ranges the policy must refuse, written out independently of ipaddr.js from the IANA
 * special-purpose registries, so isPublicAddress is checked against a second source.
 */

/** Independent oracle: IPv4 blocks that are not public unicast (IANA special-purpose registry). */
export const ORACLE_BLOCKED_V4 = [
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.0.2.0/24",
  "192.31.196.0/24",
  "192.52.193.0/24",
  "192.88.99.0/24",
  "192.168.0.0/16",
  "192.175.48.0/24",
  "198.18.0.0/15",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "224.0.0.0/4",
  "240.0.0.0/4",
  "168.63.129.16/32",
];

/** IPv6 blocks inside 2000::/3 that are not public unicast; everything outside 2000::/3 is blocked. */
export const ORACLE_BLOCKED_V6_IN_GLOBAL = ["2001::/23", "2001:db8::/32", "2002::/16", "3fff::/20", "2620:4f:8000::/48"];
