/**
 * Location and language of a search (spec 4.7 rule 1), validated and paired through the runtime's
 * CLDR data (Intl): a location is an ISO 3166-1 alpha-2 country, a language an ISO 639 code, and
 * the missing one of the two is the most predominant pairing from CLDR likely subtags.
 */

export const DEFAULT_LOCATION = "US";
export const DEFAULT_LANGUAGE = "en";

const regionNames = new Intl.DisplayNames(["en"], { type: "region" });
const languageNames = new Intl.DisplayNames(["en"], { type: "language" });

/** CLDR regions that are not countries: macro-regions and private-use codes (Kosovo's XK is kept). */
const NOT_COUNTRIES = /^(EU|EZ|UN|QO|AA|ZZ|Q[M-Z]|X[A-JL-Z])$/;
const NOT_LANGUAGES = new Set(["und", "zxx", "mul", "mis"]);

/** The upper-case country code, or null when `value` is not an ISO 3166-1 alpha-2 country. */
export function normaliseLocation(value: string): string | null {
  const code = value.trim().toUpperCase();
  if (!/^[A-Z]{2}$/.test(code) || NOT_COUNTRIES.test(code)) return null;
  try {
    const name = regionNames.of(code);
    return name && name !== code ? code : null;
  } catch {
    return null;
  }
}

/** The canonical lower-case language code, or null when `value` is not an ISO 639 language. */
export function normaliseLanguage(value: string): string | null {
  const code = value.trim().toLowerCase();
  if (!/^[a-z]{2,3}$/.test(code) || NOT_LANGUAGES.has(code) || code.startsWith("q")) return null;
  try {
    const canonical = new Intl.Locale(code).language;
    const name = languageNames.of(canonical);
    return name && name !== canonical ? canonical : null;
  } catch {
    return null;
  }
}

/** Rule 1: the language most spoken in a country (BR → pt, GB → en). */
export function languageOf(location: string): string {
  try {
    return new Intl.Locale(`und-${location}`).maximize().language || DEFAULT_LANGUAGE;
  } catch {
    return DEFAULT_LANGUAGE;
  }
}

/** Rule 1: the country a language is most associated with (ja → JP, fr → FR). */
export function locationOf(language: string): string {
  try {
    return new Intl.Locale(language).maximize().region ?? DEFAULT_LOCATION;
  } catch {
    return DEFAULT_LOCATION;
  }
}

/** Rule 1 as a whole: both given are kept; one given implies the other; none gives US/en. */
export function resolveLocale(location?: string, language?: string): { location: string; language: string } {
  if (location && language) return { location, language };
  if (location) return { location, language: languageOf(location) };
  if (language) return { location: locationOf(language), language };
  return { location: DEFAULT_LOCATION, language: DEFAULT_LANGUAGE };
}
