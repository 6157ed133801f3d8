import { trimEndWhere } from "../../lib/trim.ts";
import { absoluteUrl, isWebUrl } from "./dom.ts";

/** The largest candidate of a srcset (by width descriptor, then density); URLs may contain commas. */
export function largestSrcsetUrl(srcset: string | null): string | null {
  if (!srcset) return null;
  let best: string | null = null;
  let bestScore = -1;
  let i = 0;
  const n = srcset.length;
  while (i < n) {
    while (i < n && (srcset[i] === "," || /\s/.test(srcset[i] ?? ""))) i++;
    const start = i;
    while (i < n && !/\s/.test(srcset[i] ?? "")) i++;
    let url = srcset.slice(start, i);
    let descriptor = "";
    if (url.endsWith(",")) url = trimEndWhere(url, (c) => c === ",");
    else {
      const d = i;
      while (i < n && srcset[i] !== ",") i++;
      descriptor = srcset.slice(d, i).trim();
    }
    if (url === "") continue;
    const m = /^(\d+(?:\.\d+)?)([wx])$/i.exec(descriptor);
    // width descriptors outrank densities; "1x" is the default
    const score = m ? Number(m[1]) * (m[2]?.toLowerCase() === "w" ? 1 : 0.001) : 0.001;
    if (score > bestScore) {
      best = url;
      bestScore = score;
    }
  }
  return best;
}

const LAZY_SRC_ATTRS = ["data-src", "data-lazy-src", "data-original", "data-lazy", "data-url", "data-hi-res-src"];
const LAZY_SRCSET_ATTRS = ["srcset", "data-srcset", "data-lazy-srcset"];

/**
 * The best absolute http(s) URL of an image: the largest srcset candidate, then a lazy-loading
 * attribute (their `src` is usually a placeholder), then `src`, then `<picture><source>` sets.
 * `data:` URLs never qualify.
 */
export function imageUrl(img: Element, base: string): string | null {
  for (const attr of LAZY_SRCSET_ATTRS) {
    const url = absoluteUrl(largestSrcsetUrl(img.getAttribute(attr)), base);
    if (url && isWebUrl(url)) return url;
  }
  for (const attr of [...LAZY_SRC_ATTRS, "src"]) {
    const url = absoluteUrl(img.getAttribute(attr), base);
    if (url && isWebUrl(url)) return url;
  }
  const picture = img.parentElement;
  if (picture?.localName === "picture") {
    for (let n = picture.firstElementChild; n; n = n.nextElementSibling) {
      if (n.localName !== "source") continue;
      const url = absoluteUrl(largestSrcsetUrl(n.getAttribute("srcset") ?? n.getAttribute("data-srcset")), base);
      if (url && isWebUrl(url)) return url;
    }
  }
  return null;
}
