/**
 * The line a forum's mobile app adds under a post ("Sent from my iPhone using Tapatalk", "Sent
 * from my SM-S908U using AC Forums mobile app"): the poster's device, not what was said. It stands
 * on a line of its own at the end of the post's text (after a <br>, or as its own block).
 */

/** The whole line: a short device name, then the app. A sentence that goes on is the poster's own. */
const SENT_FROM = /^sent from my [^.,!?]{1,30}?( using [^.,!?]{1,50})?\.?$/i;
const LINE_MAX = 140;
const squash = (s: string) => s.replace(/\s+/g, " ").trim();

/** Removes the "Sent from my … using …" lines inside `root`. */
export function dropMobileSignatures(root: Element): void {
  const doc = root.ownerDocument;
  const walker = doc.createTreeWalker(root, 4 /* NodeFilter.SHOW_TEXT */);
  const starts: Text[] = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const t = n as Text;
    if (/^\s*sent from my /i.test(t.data) && lineStart(t)) starts.push(t);
  }
  for (const start of starts) {
    const line: Node[] = [];
    let text = "";
    for (let n: Node | null = start; n && (n as Element).localName !== "br"; n = n.nextSibling) {
      line.push(n);
      text += n.textContent ?? "";
      if (text.length > LINE_MAX) break;
    }
    if (text.length <= LINE_MAX && SENT_FROM.test(squash(text))) for (const n of line) n.parentNode?.removeChild(n);
  }
}

/** True when nothing but space stands before `t` on its line (a <br> or its block's start). */
function lineStart(t: Text): boolean {
  for (let p = t.previousSibling; p; p = p.previousSibling) {
    if (p.nodeType === 1) return (p as Element).localName === "br";
    if ((p.textContent ?? "").trim() !== "") return false;
  }
  return true;
}
