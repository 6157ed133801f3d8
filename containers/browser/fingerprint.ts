import { hashSeed, mulberry32 } from "../../functions/lib/prng.ts";

/**
 * The browser a stealth page claims to be (remote browser `stealth` sessions and runs with
 * `browser_profile: stealth`): a desktop Chrome on Linux x86_64, speaking the language and living
 * in the time zone of the proxy's exit country. It is derived from a seed only, so the same seed
 * (a session id, a run id) looks like the same machine on every visit, and two seeds look like two
 * machines. stealth.ts applies it over CDP.
 */
export interface Fingerprint {
  /** Chrome's reduced user agent string (what real Chrome ≥ 110 sends: "Chrome/<major>.0.0.0"). */
  userAgent: string;
  /** The full version the client hints report ("<major>.0.<build>.<patch>", patch from the seed). */
  fullVersion: string;
  /** Emulation.setUserAgentOverride's userAgentMetadata (navigator.userAgentData, Sec-CH-UA-*). */
  userAgentMetadata: UserAgentMetadata;
  /** navigator.platform */
  platform: string;
  /** navigator.languages, most preferred first. */
  languages: string[];
  /** The Accept-Language header Chromium builds from `languages` (q-values 0.9, 0.8, …). */
  acceptLanguage: string;
  /** ICU locale for Intl (Emulation.setLocaleOverride). */
  locale: string;
  /** IANA time zone (Emulation.setTimezoneOverride). */
  timezone: string;
  screen: {
    width: number;
    height: number;
    availWidth: number;
    availHeight: number;
    colorDepth: number;
    deviceScaleFactor: number;
  };
  /** The page's layout viewport (innerWidth × innerHeight). */
  viewport: { width: number; height: number };
  /** The browser window around the viewport (outerWidth × outerHeight): tab strip and toolbar above it. */
  window: { outerWidth: number; outerHeight: number };
  hardwareConcurrency: number;
  deviceMemory: number;
  webgl: { vendor: string; renderer: string };
  /** Seeds the canvas read-back noise (32-bit unsigned). */
  noiseSeed: number;
}

export interface UserAgentMetadata {
  brands: { brand: string; version: string }[];
  fullVersionList: { brand: string; version: string }[];
  fullVersion: string;
  platform: string;
  platformVersion: string;
  architecture: string;
  model: string;
  mobile: boolean;
  bitness: string;
  wow64: boolean;
  formFactors: string[];
}

export interface FingerprintOptions {
  seed: string;
  /** Chromium's version, e.g. Browser.getVersion's product "HeadlessChrome/131.0.6778.85". */
  browserVersion: string;
  /** The proxy's exit country (ISO 3166-1 alpha-2); null or a country not in the table → US. */
  countryCode: string | null;
  /** The viewport the caller sets; without it, a maximized window on the chosen screen. */
  viewport?: { width: number; height: number };
}

/** Language list, ICU locale and time zone of each exit country (the largest city's zone). */
const COUNTRIES: Record<string, { languages: string[]; timezone: string }> = {
  US: { languages: ["en-US", "en"], timezone: "America/New_York" },
  GB: { languages: ["en-GB", "en"], timezone: "Europe/London" },
  CA: { languages: ["en-CA", "en"], timezone: "America/Toronto" },
  AU: { languages: ["en-AU", "en"], timezone: "Australia/Sydney" },
  DE: { languages: ["de-DE", "de", "en-US", "en"], timezone: "Europe/Berlin" },
  FR: { languages: ["fr-FR", "fr", "en-US", "en"], timezone: "Europe/Paris" },
  IT: { languages: ["it-IT", "it", "en-US", "en"], timezone: "Europe/Rome" },
  ES: { languages: ["es-ES", "es", "en-US", "en"], timezone: "Europe/Madrid" },
  NL: { languages: ["nl-NL", "nl", "en-US", "en"], timezone: "Europe/Amsterdam" },
  JP: { languages: ["ja-JP", "ja", "en-US", "en"], timezone: "Asia/Tokyo" },
  SG: { languages: ["en-SG", "en"], timezone: "Asia/Singapore" },
  BR: { languages: ["pt-BR", "pt", "en-US", "en"], timezone: "America/Sao_Paulo" },
  IN: { languages: ["en-IN", "en"], timezone: "Asia/Kolkata" },
};
const DEFAULT_COUNTRY = "US";

/** Common desktop screen sizes (CSS pixels at scale 1, as Linux desktops mostly run). */
const SCREENS: [number, number][] = [
  [1920, 1080],
  [1920, 1080],
  [1920, 1080],
  [1920, 1200],
  [2560, 1440],
  [1680, 1050],
  [1600, 900],
  [1536, 864],
  [1440, 900],
  [1366, 768],
];
/** Height of a desktop panel (none, GNOME's top bar, a KDE/Cinnamon taskbar): screen − avail. */
const PANELS = [0, 32, 48];
/** Chrome's tab strip and toolbar above the viewport (outerHeight − innerHeight on Linux). */
const BROWSER_UI_HEIGHT = 85;

/** Desktop GPUs as Chrome on Linux (ANGLE over OpenGL) reports them through WEBGL_debug_renderer_info. */
const GPUS = [
  { vendor: "Google Inc. (Intel)", renderer: "ANGLE (Intel, Mesa Intel(R) UHD Graphics 620 (KBL GT2), OpenGL 4.6)" },
  { vendor: "Google Inc. (Intel)", renderer: "ANGLE (Intel, Mesa Intel(R) UHD Graphics 630 (CFL GT2), OpenGL 4.6)" },
  { vendor: "Google Inc. (Intel)", renderer: "ANGLE (Intel, Mesa Intel(R) Xe Graphics (TGL GT2), OpenGL 4.6)" },
  {
    vendor: "Google Inc. (AMD)",
    renderer: "ANGLE (AMD, AMD Radeon RX 580 Series (radeonsi, polaris10, LLVM 15.0.7), OpenGL 4.6)",
  },
  {
    vendor: "Google Inc. (NVIDIA Corporation)",
    renderer: "ANGLE (NVIDIA Corporation, NVIDIA GeForce GTX 1660 SUPER/PCIe/SSE2, OpenGL 4.5.0)",
  },
];
const CORES = [4, 8, 8, 12, 16];
/** Chrome rounds navigator.deviceMemory and caps it at 8. */
const MEMORY = [4, 8, 8];

/**
 * The GREASE brand Chrome adds to its brand list, and the list's order, both fixed by the major
 * version (Chromium's user_agent_utils GenerateBrandVersionList): copying the algorithm keeps the
 * list identical to what that Chrome version really sends.
 */
function brandsFor(major: number, fullVersion: string | null): { brand: string; version: string }[] {
  const chars = [" ", "(", ":", "-", ".", "/", ")", ";", "=", "?", "_"];
  const greaseMajor = ["8", "99", "24"][major % 3] as string;
  const grease = {
    brand: `Not${chars[major % chars.length]}A${chars[(major + 1) % chars.length]}Brand`,
    version: fullVersion === null ? greaseMajor : `${greaseMajor}.0.0.0`,
  };
  const version = fullVersion ?? String(major);
  const list = [grease, { brand: "Chromium", version }, { brand: "Google Chrome", version }];
  const orders = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
  ];
  const order = orders[major % orders.length] as number[];
  const out = [...list];
  order.forEach((slot, i) => {
    out[slot] = list[i] as (typeof list)[number];
  });
  return out;
}

/** Chrome's Accept-Language from a language list: the first bare, then q=0.9, 0.8, … (never below 0.1). */
function acceptLanguageOf(languages: string[]): string {
  return languages.map((l, i) => (i === 0 ? l : `${l};q=${Math.max(1, 10 - i) / 10}`)).join(",");
}

const pick = <T>(rand: () => number, list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;

/** Pure: the same options give a deep-equal fingerprint. */
export function fingerprintFor(opts: FingerprintOptions): Fingerprint {
  const rand = mulberry32(hashSeed(opts.seed));
  // The major version must stay the real one: features, and the GREASE brand, follow it.
  const [, majorText = "120", buildText = "0"] = /(\d+)\.\d+\.(\d+)(?:\.\d+)?/.exec(opts.browserVersion) ?? [];
  const major = Number(majorText);
  const patch = 40 + Math.floor(rand() * 180);
  const fullVersion = `${major}.0.${buildText}.${patch}`;
  const country =
    COUNTRIES[(opts.countryCode ?? DEFAULT_COUNTRY).toUpperCase()] ?? (COUNTRIES[DEFAULT_COUNTRY] as (typeof COUNTRIES)[string]);

  const panel = pick(rand, PANELS);
  const fits = SCREENS.filter(
    ([w, h]) => !opts.viewport || (w >= opts.viewport.width && h - panel >= opts.viewport.height + BROWSER_UI_HEIGHT),
  );
  // A viewport larger than every listed screen gets a screen just large enough around it.
  const [width, height] =
    fits.length > 0
      ? pick(rand, fits)
      : [opts.viewport?.width ?? 1920, (opts.viewport?.height ?? 1080) + BROWSER_UI_HEIGHT + panel];
  const screen = { width, height, availWidth: width, availHeight: height - panel, colorDepth: 24, deviceScaleFactor: 1 };
  const viewport = opts.viewport ?? { width: screen.availWidth, height: screen.availHeight - BROWSER_UI_HEIGHT };

  return {
    userAgent: `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`,
    fullVersion,
    userAgentMetadata: {
      brands: brandsFor(major, null),
      fullVersionList: brandsFor(major, fullVersion),
      fullVersion,
      platform: "Linux",
      platformVersion: "",
      architecture: "x86",
      model: "",
      mobile: false,
      bitness: "64",
      wow64: false,
      formFactors: ["Desktop"],
    },
    platform: "Linux x86_64",
    languages: [...country.languages],
    acceptLanguage: acceptLanguageOf(country.languages),
    locale: country.languages[0] as string,
    timezone: country.timezone,
    screen,
    viewport: { ...viewport },
    window: { outerWidth: viewport.width, outerHeight: viewport.height + BROWSER_UI_HEIGHT },
    hardwareConcurrency: pick(rand, CORES),
    deviceMemory: pick(rand, MEMORY),
    webgl: { ...pick(rand, GPUS) },
    noiseSeed: Math.floor(rand() * 2 ** 32) >>> 0,
  };
}
