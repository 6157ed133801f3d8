/**
 * Appeals for support under a story: the publisher's box asking readers to donate or subscribe to
 * keep the site going ("Enjoyed this piece? We need your help to keep publishing", "This story is
 * funded by readers like you", "Five Books interviews are expensive to produce... please support
 * us"). Non-profit newsrooms and independent magazines print one after every article, in plain
 * blocks a class word does not mark. It speaks of the site, not of the story. A box goes when it
 * is short, follows an article's worth of text and its words ask for the readers' support; a
 * story about donations (to a charity, of blood, of old clothes) says none of these things.
 */

const APPEAL =
  /\b(reader|our) donations\b|\bfunded by (our )?readers\b|\breaders like you\b|\bplease (consider )?(supporting|support|donating|donate)\b|\bsupport (us|our (work|mission|journalism|newsroom|reporting))\b|\bwe need your (help|support)\b|\bkeep (content|journalism|our journalism|this site|us) (open|free|independent|going)\b/i;
/** An appeal is a heading and a few lines; a longer block is part of the page. */
const APPEAL_CHARS = 700;
/** Text the story holds before the box for it to be an appeal under a story. */
const STORY_CHARS = 1500;

/** Removes the appeals for support inside an article's root `root`. */
export function dropAppeals(root: Element): void {
  let before = 0;
  const doomed: Element[] = [];
  const visit = (el: Element) => {
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
      const text = c.textContent ?? "";
      const chars = text.replace(/\s+/g, " ").trim().length;
      if (chars === 0) continue;
      if (chars <= APPEAL_CHARS) {
        if (before >= STORY_CHARS && APPEAL.test(text)) doomed.push(c);
        else before += chars;
      } else visit(c);
    }
  };
  visit(root);
  for (const d of doomed) d.remove();
}
