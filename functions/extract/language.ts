/**
 * Language codes: normalisation of declared codes ("en-US", "en_GB", "pt-br" → "en"/"pt") and a
 * small detector of our own for pages that declare nothing: the writing system first, then, for
 * Latin and Cyrillic text, the share of very common function words. Null when unsure.
 */

/** Primary subtag of a declared language code, lower-cased; null when it is not a plausible code. */
export function normalizeLanguage(code: string | null | undefined): string | null {
  if (!code) return null;
  const primary =
    code
      .trim()
      .split(/[-_\s,;]/)[0]
      ?.toLowerCase() ?? "";
  if (!/^[a-z]{2,3}$/.test(primary) || primary === "und" || primary === "mul" || primary === "zxx") return null;
  return primary;
}

const STOPWORDS: Record<string, string> = {
  en: "the and of to in is that it for was on are with as be this by have from or not at but they you his her which their an has were been will would can",
  de: "der die und in den von zu das mit sich des auf für ist im dem nicht ein eine als auch es an werden aus er hat dass sie nach wird bei einer um",
  fr: "le la les de des et en un une du est pour que qui dans par sur pas au plus avec ce il sont mais ou cette aux ses son nous vous elle",
  es: "el la de que y en los del se las por un para con no una su al lo como más pero sus le ya o este sí porque esta entre cuando muy sin",
  it: "il di che e la per un in una è non del della con sono le dei si da gli al alla anche come ma nel più questo delle ha",
  pt: "de que e o da do em um para com não uma os no se na por mais as dos como mas ao ele das à seu sua ou quando muito nos já está",
  nl: "de het een en van in is dat op te zijn met voor niet aan er ook als bij door maar om dan naar wordt nog deze wel uit hij",
  sv: "och att det som en på är av för med till den har de inte om ett men var jag sig från vi så kan man när år",
  da: "og i at det er en til på som de med han af for ikke der var mig sig men et har om vi min havde ham hun nu",
  pl: "i w nie na się z do to że jest jak po co tak za od ale jego już przez są być ich o czy tylko",
  ru: "и в не на что с по как это он но из к у за от так же все для о мы был она они его",
  tr: "ve bir bu da de için ile çok olarak daha gibi en o ne var ama sonra kadar değil mi olan",
  id: "yang dan di ini itu dengan untuk dari dalam tidak akan pada juga ke karena ada atau oleh",
  cs: "a se na je že v to s z do jako ale by o pro jsou tak jsem jeho který také",
  fi: "ja on ei että se oli hän ovat mutta kun myös tai joka ole sen niin mitä",
};

const STOPWORD_SETS: [string, Set<string>][] = Object.entries(STOPWORDS).map(([lang, words]) => [
  lang,
  new Set(words.split(" ")),
]);

const SCRIPTS: [string, RegExp][] = [
  ["ja", /[\u3040-\u30ff]/g],
  ["ko", /[\uac00-\ud7af]/g],
  ["zh", /[\u4e00-\u9fff]/g],
  ["ar", /[\u0600-\u06ff]/g],
  ["he", /[\u0590-\u05ff]/g],
  ["el", /[\u0370-\u03ff]/g],
  ["th", /[\u0e00-\u0e7f]/g],
  ["hi", /[\u0900-\u097f]/g],
];

/** Guesses the language of a text sample; null when the evidence is thin. */
export function detectLanguage(text: string): string | null {
  const sample = text.slice(0, 20_000);
  const letters = sample.match(/\p{L}/gu)?.length ?? 0;
  if (letters < 40) return null;
  // Kana beats Han: Japanese text mixes both, Chinese has no kana.
  for (const [lang, re] of SCRIPTS) {
    const n = sample.match(re)?.length ?? 0;
    if (lang === "zh" ? n / letters > 0.3 : n / letters > (lang === "ja" ? 0.05 : 0.3)) return lang;
  }
  const words = sample.toLowerCase().match(/\p{L}+/gu) ?? [];
  if (words.length < 15) return null;
  const cyrillic = (sample.match(/[\u0400-\u04ff]/g)?.length ?? 0) / letters > 0.3;
  let best: string | null = null;
  let bestHits = 0;
  let second = 0;
  for (const [lang, set] of STOPWORD_SETS) {
    if (cyrillic !== (lang === "ru")) continue;
    let hits = 0;
    for (const w of words) if (set.has(w)) hits++;
    if (hits > bestHits) {
      second = bestHits;
      bestHits = hits;
      best = lang;
    } else if (hits > second) second = hits;
  }
  // Require function words to be common and the winner to be clear.
  if (bestHits / words.length < 0.08 || bestHits < second * 1.4) return null;
  return best;
}
