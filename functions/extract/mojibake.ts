/**
 * UTF-8 text read once as Latin-1 and stored again ("Zoho Peopleâ\u0080\u0094cloud-based" for
 * "Zoho People—cloud-based"): a page saved through a tool that guessed the wrong charset. Each
 * character beyond ASCII became two to four characters, the first a Latin letter (Â, Ã, â, ð)
 * and the rest from U+0080-U+00BF, so the words around it no longer read. Such a page holds C1
 * control characters (U+0080-U+009F), which no real text holds; only then is every run that
 * spells a valid UTF-8 sequence decoded back. A page without them (a real "Ã©" in a name, a
 * "Â°" in a table) is left as it is.
 */

/** A lead byte (as a Latin-1 character) followed by a C1 control character: the mark of such a page. */
const MARK = /[\u00c2-\u00f4][\u0080-\u009f]/;
/** One UTF-8 sequence spelled in Latin-1: a lead byte and its continuation bytes. */
const RUN = /[\u00c2-\u00df][\u0080-\u00bf]|[\u00e0-\u00ef][\u0080-\u00bf]{2}|[\u00f0-\u00f4][\u0080-\u00bf]{3}/g;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Returns `html` with double-encoded UTF-8 decoded back, or `html` itself when it shows none. */
export function repairMojibake(html: string): string {
  if (!MARK.test(html)) return html;
  return html.replace(RUN, (run) => {
    const bytes = Uint8Array.from(run, (c) => c.charCodeAt(0));
    try {
      return utf8.decode(bytes);
    } catch {
      return run;
    }
  });
}
