/**
 * Case tables for the address policy. Families are generated: every sensitive IPv4 target is
 * written in every odd spelling a URL parser accepts, so a new target or a new spelling multiplies
 * into the table. The oracle CIDR lists at the bottom are written from the IANA special-purpose
 * registries independently of ipaddr.js, so the tests cross-check the library, not restate it.
 */

export interface UrlCase {
  url: string;
  why: string;
}

/** IPv4 targets that must never be reached, whatever the spelling. */
export const SENSITIVE_V4 = [
  "127.0.0.1",
  "127.1.2.3",
  "127.255.255.254",
  "0.0.0.0",
  "10.0.0.1",
  "10.255.255.255",
  "172.16.0.1",
  "172.31.255.255",
  "192.168.0.1",
  "192.168.1.254",
  "169.254.169.254",
  "169.254.170.2",
  "100.64.0.1",
  "100.100.100.200",
  "168.63.129.16",
  "192.0.0.192",
  "198.18.0.1",
  "192.0.2.1",
  "224.0.0.1",
  "255.255.255.255",
];

const octets = (ip: string): number[] => ip.split(".").map(Number);
const toInt = (ip: string): number => octets(ip).reduce((n, o) => n * 256 + o, 0);
const hex = (n: number) => n.toString(16);
const FULL_WIDTH = (s: string) => s.replace(/[0-9.]/g, (c) => (c === "." ? "．" : String.fromCharCode(0xff10 + Number(c))));

/** Every spelling of an IPv4 address that WHATWG URL parsing turns back into that address. */
export function v4Spellings(ip: string): { host: string; form: string }[] {
  const [a = 0, b = 0, c = 0, d = 0] = octets(ip);
  const n = toInt(ip);
  const mappedHex = `${hex((a << 8) | b)}:${hex((c << 8) | d)}`;
  const forms: { host: string; form: string }[] = [
    { host: ip, form: "dotted" },
    { host: String(n), form: "decimal" },
    { host: `0x${hex(n)}`, form: "hex" },
    { host: `0X${hex(n).toUpperCase()}`, form: "upper hex" },
    { host: `0${n.toString(8)}`, form: "octal" },
    { host: [a, b, c, d].map((o) => `0${o.toString(8)}`).join("."), form: "dotted octal" },
    { host: [a, b, c, d].map((o) => `0x${hex(o)}`).join("."), form: "dotted hex" },
    { host: `0x${hex(a)}.${b}.0${c.toString(8)}.${d}`, form: "mixed radix" },
    { host: `${a}.${b}.${c * 256 + d}`, form: "short a.b.c" },
    { host: `${a}.${b * 65536 + c * 256 + d}`, form: "short a.b" },
    { host: `${ip}.`, form: "trailing dot" },
    // Zero padding means octal to a URL parser (010 is 8), so padded octets are written in octal.
    { host: [a, b, c, d].map((o) => o.toString(8).padStart(4, "0")).join("."), form: "zero-padded octal" },
    { host: FULL_WIDTH(ip), form: "full-width" },
    { host: ip.replace(/\./g, "。"), form: "ideographic full stop" },
    { host: [...ip].map((ch) => `%${ch.charCodeAt(0).toString(16)}`).join(""), form: "percent-encoded" },
    { host: `[::ffff:${ip}]`, form: "IPv4-mapped dotted" },
    { host: `[::ffff:${mappedHex}]`, form: "IPv4-mapped hex" },
    { host: `[0:0:0:0:0:ffff:${ip}]`, form: "IPv4-mapped long" },
    { host: `[::${ip}]`, form: "IPv4-compatible" },
    { host: `[::ffff:0:${ip}]`, form: "IPv4-translated (RFC 6145)" },
    { host: `[64:ff9b::${ip}]`, form: "NAT64 well-known" },
    { host: `[64:ff9b:1::${ip}]`, form: "NAT64 local-use" },
    { host: `[2002:${mappedHex}::1]`, form: "6to4" },
  ];
  return forms;
}

const generatedV4: UrlCase[] = SENSITIVE_V4.flatMap((ip) =>
  v4Spellings(ip).flatMap(({ host, form }) => [
    { url: `http://${host}/`, why: `${ip} as ${form}` },
    ...(form === "dotted" || form === "decimal" || form === "IPv4-mapped hex"
      ? [
          { url: `https://${host}:8443/admin`, why: `${ip} as ${form}, https with port` },
          { url: `HTTP://${host}/latest/meta-data/`, why: `${ip} as ${form}, upper-case scheme` },
        ]
      : []),
  ]),
);

const LOCAL_NAMES = [
  "localhost",
  "LOCALHOST",
  "localhost.",
  "LocalHost.",
  "localhost..",
  "foo.localhost",
  "a.b.c.localhost",
  "ⓛocalhost",
  "ｌｏｃａｌｈｏｓｔ",
  "local%68ost",
  "localhost.localdomain",
  "metadata",
  "metadata.",
  "metadata.google.internal",
  "METADATA.GOOGLE.INTERNAL.",
  "metadata.goog",
  "instance-data",
  "instance-data.ec2.internal",
  "ip-10-0-0-1.ec2.internal",
  "service.internal",
  "printer.local",
  "router.lan",
  "nas.home.arpa",
  "kubernetes",
  "kubernetes.default.svc",
  "kubernetes.default.svc.cluster.local",
  "redis.cluster.local",
  "intranet",
  "wiki.corp",
  "box.home",
  "hidden.onion",
  "example.test",
  "nothing.invalid",
];

const generatedNames: UrlCase[] = LOCAL_NAMES.flatMap((name) => [
  { url: `http://${name}/`, why: `internal name ${name}` },
  { url: `https://${name}:8080/x`, why: `internal name ${name}, https with port` },
]);

const V6_LITERALS = [
  "::1",
  "0:0:0:0:0:0:0:1",
  "0000:0000:0000:0000:0000:0000:0000:0001",
  "::",
  "::0",
  "0:0:0:0:0:0:0:0",
  "fe80::1",
  "fe80::a9fe:a9fe",
  "febf:ffff::1",
  "fc00::1",
  "fd00::1",
  "fdff:ffff::1",
  "fd00:ec2::254",
  "fd00:ec2::253",
  "ff02::1",
  "ff05::1:3",
  "ff0e::1",
  "2001:db8::1",
  "2001:db8:ffff::1",
  "3fff::1",
  "2001:2::1",
  "2001::1",
  "2001:0:4136:e378:8000:63bf:3fff:fdd2",
  "2001:10::1",
  "2001:20::1",
  "100::1",
  "fec0::1",
  "5f00::1",
  "::ffff:0:0",
  "::ffff:ffff:ffff",
  "64:ff9b::a9fe:a9fe",
  "64:ff9b::7f00:1",
  "64:ff9b::a00:1",
  "2002:7f00:1::",
  "2002:a9fe:a9fe::1",
  "2002:808:808::1",
  "::7f00:1",
  "::a9fe:a9fe",
];

const generatedV6: UrlCase[] = V6_LITERALS.flatMap((ip) => [
  { url: `http://[${ip}]/`, why: `IPv6 ${ip}` },
  { url: `https://[${ip.toUpperCase()}]:443/`, why: `IPv6 ${ip}, upper case` },
]);

const SCHEMES: UrlCase[] = [
  "file:///etc/passwd",
  "file://localhost/etc/passwd",
  "file://example.com/etc/passwd",
  "FILE:///c:/windows/win.ini",
  "ftp://example.com/",
  "ftp://127.0.0.1/",
  "sftp://example.com/",
  "tftp://example.com/x",
  "gopher://example.com:70/_GET%20/",
  "gopher://127.0.0.1:6379/_FLUSHALL",
  "dict://example.com:11211/stat",
  "ldap://example.com/",
  "ldaps://example.com/",
  "javascript:alert(1)",
  "JaVaScRiPt:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "data:,hello",
  "ws://example.com/",
  "wss://example.com/",
  "chrome://settings",
  "about:blank",
  "blob:https://example.com/0b1d",
  "view-source:http://example.com/",
  "jar:http://example.com/a.jar!/",
  "netdoc:///etc/passwd",
  "mailto:a@example.com",
  "telnet://example.com/",
  "ssh://example.com/",
  "smb://example.com/share",
  "redis://example.com:6379/",
  "mysql://example.com/",
  "postgres://example.com/db",
  "urn:isbn:0451450523",
  "httpx://example.com/",
  "http+unix://%2Fvar%2Frun%2Fdocker.sock/",
].map((url) => ({ url, why: "scheme is not http(s)" }));

const TRICKS: UrlCase[] = [
  ["http://evil.com@127.0.0.1/", "userinfo before a loopback host"],
  ["http://127.0.0.1#@evil.com/", "fragment hides the real host"],
  ["http://127.0.0.1?@evil.com/", "query hides the real host"],
  ["http://127.0.0.1\\@evil.com/", "backslash ends the authority"],
  ["http://user:pass@example.com/", "credentials"],
  ["http://user@example.com/", "user name"],
  ["http://:secret@example.com/", "password only"],
  ["http://example.com:80@127.0.0.1/", "port-looking userinfo"],
  ["http://127.0.0.1:80\\@example.com/", "backslash after port"],
  ["http://[::1]#@example.com/", "IPv6 loopback behind fragment"],
  ["http:127.0.0.1/", "no slashes"],
  ["http:/127.0.0.1/", "one slash"],
  ["http:\\\\127.0.0.1\\", "backslashes"],
  ["  http://127.0.0.1/  ", "surrounding spaces"],
  ["\thttp://127.0.0.1/\n", "surrounding control characters"],
  ["http://127.0.0.1\t/", "tab in host"],
  ["http://loc\nalhost/", "newline in host"],
  ["http://0/", "bare zero"],
  ["http://0.0/", "short zero"],
  ["http://127.1/", "short loopback"],
  ["http://127.0.1/", "three-part loopback"],
  ["http://0177.1/", "octal short"],
  ["http://0x7f.1/", "hex short"],
  ["http://00000000177.0.0.1/", "long octal"],
  ["http://0x00007f.0.0.1/", "long hex"],
  ["http://example.com:25/", "SMTP port"],
  ["http://example.com:22/", "SSH port"],
  ["http://example.com:0/", "port zero"],
  ["http://example.com:6667/", "IRC port"],
  ["https://example.com:993/", "IMAPS port"],
  ["", "empty"],
  ["not a url", "not a URL"],
  ["//example.com/", "scheme-relative"],
  ["/etc/passwd", "path only"],
  ["http://", "no host"],
  ["http://[::1", "unterminated IPv6"],
  ["http://1.2.3.4.5/", "five-part IPv4"],
  ["http://256.0.0.1/", "octet out of range"],
  ["http://4294967296/", "integer out of range"],
  ["http://example.com:99999/", "port out of range"],
  ["http://exa mple.com/", "space in host"],
  ["http://[fe80::1%25eth0]/", "zone identifier"],
].map(([url = "", why = ""]) => ({ url, why }));

/** Every refused payload, once each (some spellings of 0.0.0.0 coincide). */
export const REJECTED_URLS: UrlCase[] = [
  ...new Map([...generatedV4, ...generatedNames, ...generatedV6, ...SCHEMES, ...TRICKS].map((c) => [c.url, c])).values(),
];
