/**
 * Inside a thread's root: the chrome repeated in every post (author cards, date lines, action
 * bars) and the thread's notices (sign-in prompts, viewer counts, edit notices, reply forms). Where
 * the thread lies on the page is content/posts-root.ts.
 */
import { makeOf } from "./dom.ts";
import { AGE, bylineOf } from "./post-byline.ts";
import type { StatsMap } from "./score.ts";

const squash = (s: string) => s.replace(/\s+/g, " ").trim();

/** A thread's posts: at least this many siblings of one make, holding this share of the root's text. */
const POSTS_MIN = 3;
const POSTS_SHARE = 0.5;
/** A post part that is in this share of the posts, never prose and short in each, is the posts' chrome. */
const CHROME_IN = 0.6;
const CHROME_MAX_CHARS = 300;
const CHROME_MEAN_CHARS = 150;
/**
 * How deep inside a post its parts are counted (posts nest their cells in a few wrappers); deeper,
 * in the replies a comment tree nests inside a post, a part of the same make as a chrome part goes too.
 */
const PART_DEPTH = 6;

/** The largest run of sibling posts of one make under `root` that holds most of its text. */
function postList(root: Element, stats: StatsMap): Element[] | null {
  const least = POSTS_SHARE * (stats.get(root)?.chars ?? 0);
  const best = { posts: [] as Element[], chars: 0 };
  const visit = (el: Element) => {
    if (el.childElementCount >= POSTS_MIN) {
      const groups = new Map<string, { posts: Element[]; chars: number }>();
      for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
        const chars = stats.get(c)?.chars ?? 0;
        if (chars < 20) continue;
        const key = makeOf(c);
        const g = groups.get(key) ?? { posts: [], chars: 0 };
        g.posts.push(c);
        g.chars += chars;
        groups.set(key, g);
      }
      for (const g of groups.values())
        if (g.posts.length >= POSTS_MIN && g.chars >= least && g.chars > best.chars) Object.assign(best, g);
    }
    for (let c = el.firstElementChild; c; c = c.nextElementSibling)
      if ((stats.get(c)?.chars ?? 0) >= least && c.firstElementChild) visit(c);
  };
  visit(root);
  return best.posts.length > 0 ? best.posts : null;
}

/** Words in the class of a thread's posts, or of the author block inside each. */
const POST_CLASS = /post|message|comment|reply|answer/i;
const AUTHOR_BLOCK = '[class*="author" i], [class*="avatar" i], [class*="user" i], [class*="poster" i], [class*="member" i]';

/**
 * True when the run reads as people's posts, not entries of a listing (a topic page of a news
 * site is typed as a discussion by its URL): the posts are named as such, or most carry an author block.
 */
function postsOfPeople(posts: Element[]): boolean {
  if (POST_CLASS.test(posts[0]?.getAttribute("class") ?? "")) return true;
  let withAuthor = 0;
  for (const p of posts) if (p.querySelector(AUTHOR_BLOCK)) withAuthor++;
  return withAuthor >= CHROME_IN * posts.length;
}

interface Part {
  posts: Set<Element>;
  els: Element[];
  prose: number;
  chars: number;
  max: number;
  /** False once an instance holds (nearly) all of its post: then it is the post, not its chrome. */
  partial: boolean;
}

/**
 * The chrome around each post of a thread: the author card (name, rank, post count, join date),
 * the post's date and number, its action bar ("Reply", "Report"). Such parts have the same class
 * in every post, are short and never prose, while the post's own text is prose in some posts at
 * least. They repeat once per post and are no part of what was said: they go, but for the
 * byline (who wrote the post and when).
 */
export function dropPostChrome(root: Element, stats: StatsMap): void {
  const posts = postList(root, stats);
  if (!posts?.some((p) => (stats.get(p)?.prose ?? 0) > 0) || !postsOfPeople(posts)) return;
  const parts = new Map<string, Part>();
  // Parts deeper than PART_DEPTH: the replies nested inside a post (a comment tree), whose chrome
  // has the classes of their parent's and goes with it, though it does not count.
  const deep = new Map<string, Element[]>();
  for (const post of posts) {
    const postChars = stats.get(post)?.chars ?? 0;
    const visit = (el: Element, depth: number) => {
      for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
        const s = stats.get(c);
        const cls = c.getAttribute("class");
        if (depth > PART_DEPTH) {
          if (s && cls && s.prose === 0 && s.chars <= CHROME_MAX_CHARS) {
            const key = `${c.localName} ${cls}`;
            const els = deep.get(key);
            if (els) els.push(c);
            else deep.set(key, [c]);
          }
        } else if (s && cls) {
          const key = `${c.localName} ${cls}`;
          const part = parts.get(key) ?? { posts: new Set(), els: [], prose: 0, chars: 0, max: 0, partial: true };
          part.posts.add(post);
          part.els.push(c);
          part.prose += s.prose;
          part.chars += s.chars;
          part.max = Math.max(part.max, s.chars);
          if (postChars - s.chars < 10) part.partial = false;
          parts.set(key, part);
        }
        if (c.firstElementChild) visit(c, depth + 1);
      }
    };
    visit(post, 1);
  }
  const need = Math.max(POSTS_MIN, CHROME_IN * posts.length);
  for (const [key, part] of parts) {
    if (part.posts.size < need || part.prose > 0 || !part.partial || part.max > CHROME_MAX_CHARS) continue;
    if (part.chars / part.els.length > CHROME_MEAN_CHARS) continue;
    // The author's name and the post's date stay, on lines of their own (content/post-byline.ts).
    for (const el of part.els) el.replaceWith(...bylineOf(el));
    for (const el of deep.get(key) ?? []) el.replaceWith(...bylineOf(el));
  }
}

/** A post's edit notice: "Last edited by Bob on 5 May", "Edited January 29 by Bob (see edit history)". */
const EDIT_NOTICE =
  /^(last )?edited:? ((by|on|at) |\d|[a-z]+\.? \d)|^this (post|message|reply) (was|has been) (last )?edited (by|on|at) /i;
/** A gap between posts ("3 months later..."), and the prompt to sign in that closes a thread to guests. */
const GAP = /^\d+ (days?|weeks?|months?|years?) later\W*$/i;
const SIGN_IN =
  /^\(?(create an account or sign in|you (must|need to) (be (logged in|signed in|a member|registered)|log ?in|sign ?in|register)|((please )?(log|sign) ?in( or (register|sign up))?|or (register|sign up)) to (reply|comment|post|join|answer)|join the conversation$)/i;
/** A thread's status line ("Status: Not open for further replies.", "This discussion is now closed."). */
const CLOSED =
  /^(status:? )?(not open for further replies|this (thread|topic|discussion) (is now |has been |was |is )(closed|locked|archived)( to (new|further) replies)?)\W*$/i;
/** The thread's byline under its title ("Thread starter Bob Start date Jul 9, 2022", "Discussion in 'Tents' started by Bob, May 1"). */
const THREAD_BYLINE = /^(thread starter .{1,80}start date\b|discussion in ['‘"].{1,80}['’"] started by )/i;
/** The thread's counters ("Asked 2 years ago Modified 1 year ago Viewed 2k times", "12 Posts 5 Posters 3.2k Views"). */
const THREAD_STATS =
  /^(asked\b.{1,40}\bago.{0,60}viewed [\d.,]+k? times|replies [\d.,]+k? ?views [\d.,]+k?\b|([\d.,]+k? ?(posts?|posters?|views?|replies|watching|participants?) ?){3,}$)/i;
/**
 * Panels about the thread: who is reading it ("Users who are viewing this thread", "Recently
 * Browsing 0 members") and its overview ("Top Posters In This Topic", "Popular Days").
 */
const VIEWERS =
  /^(users? (who (are|is) )?(viewing|browsing|reading) this (thread|topic|page)|recently browsing\b|top posters in this (topic|thread)|popular days|most popular posts)/i;
/** Who reacted to a post ("Reactions: Bob and Alice", "Bob likes this."), and the posts' sort control ("Sort by date"). */
const REACTIONS = /^(reactions: |.{1,100} likes? this\.?$)/i;
const SORT = /^sort by\b/i;
/** A post's number in the thread ("#2"), a link to the post in its header. */
const POST_NUMBER = /^#\d{1,6}$/;
/** A post's subject line ("Re: Turning off all LED of RPi 5", "3. Re: Tips ..."): the thread's title again. */
const REPLY_SUBJECT = /^(\d{1,6}\.\s*)?re:\s*(.{4,})$/i;
/** A post's reply and thanks counters and the thread's reply controls ("2 replies", "[ 3 ] Thanks", "Show more replies", "Post a reply"). */
const POST_COUNTERS =
  /^(\d+ repl(y|ies)|\[ ?\d+ ?\] thanks?|(show|view|load) (\d+ )?(more|all|previous|older) (replies|comments)|post a reply)$/i;
/**
 * A post's or the thread's action buttons left as a line of words ("Reply", "Quote", "Share",
 * "Report inappropriate content", "Post Reply Bookmark Topic Watch Topic", "New Topic", "Expand"), and a
 * code box's label ("Code: Select all").
 */
const ACTION =
  "((post )?reply|(multi-?)?quote|report( inappropriate content| post| to moderator)?|share|bookmark( topic| thread)?|(watch|follow) (topic|thread)|new (topic|thread)|expand|permalink|code:|select all)";
const ACTIONS = new RegExp(`^${ACTION}([\\s|·•]+${ACTION})*$`, "i");
/**
 * A member's counts in a post's author card, on a line of their own: "410 posts · Joined 2002",
 * "29,553 posts", "518 helpful votes", "Posts: 701", "Registered: 2025-11-01". Counts only: a
 * line with any other word is the post's.
 */
const STAT =
  "([\\d.,]+k? (posts?|messages?|helpful votes?|reputation|points|likes|reactions?|solutions?)|(joined|registered|member since):? [a-z ,.]{0,14}\\d[\\d ,./-]{0,10}|(posts|messages|reputation|reaction score|points|likes|solutions):? [\\d.,]+k?)";
const MEMBER_STATS = new RegExp(`^${STAT}( ?[·|•,]? ${STAT})*$`, "i");
/**
 * A member's role beside the name ("Discussion starter", "Staff member", "Administrator"); ranks
 * ("Well-known member") stay with the author card, which goes only when posts are told from it.
 */
const BADGE = /^(discussion starter|thread starter|original poster|staff member|(super )?moderator|administrator)$/i;
/** Whole short blocks that are notices, and the first lines that open a prose-free panel. */
const NOTICES = [
  AGE,
  EDIT_NOTICE,
  GAP,
  CLOSED,
  THREAD_BYLINE,
  THREAD_STATS,
  REACTIONS,
  POST_NUMBER,
  POST_COUNTERS,
  ACTIONS,
  MEMBER_STATS,
  BADGE,
];
/**
 * A prompt to ask a question of one's own under a Q&A thread ("Start asking to get answers / Find
 * the answer to your question by asking. / Ask question", "Get answers to your questions about Japan").
 */
const ASK = /^(start asking to get answers|get answers to your (own )?questions?\b|ask (a|your( own)?) question$)/i;
const PANELS = [SIGN_IN, VIEWERS, SORT, ASK];
const NOTICE_CHARS = 200;
const INLINE_NOTICE = new Set(["span", "strong", "em", "i", "b", "small", "time"]);
/** A sign-in panel holds its prompt, a line or two and its links: never more. */
const PANEL_CHARS = 600;
/** A reply form keeps its heading, labels and terms once its fields are gone ("Your Answer", "Post as a guest"). */
const REPLY_FORM_CHARS = 1000;
const REPLY_FORM_SHARE = 0.3;

/**
 * Notices a forum prints among the posts of a thread: a post's edit notice, the gap between two
 * posts, the thread's byline and closed status, the panels asking guests to sign in to reply and
 * naming who is viewing the thread, and the reply form itself (its heading, labels and terms
 * outlive its fields). None of them is what was said.
 */
export function dropThreadNotices(root: Element, stats: StatsMap): void {
  const doomed: Element[] = [];
  const rootChars = stats.get(root)?.chars ?? 0;
  const title = squash(root.ownerDocument?.title ?? "").toLowerCase();
  const visit = (el: Element) => {
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
      const s = stats.get(c);
      if (!s) {
        // An edit notice printed inline at the end of a post (<span><strong>Edited … by …</strong></span>),
        // a post's number beside its date (<a href="#p2187941">#2</a>) and its subject (<span>Re: …</span>).
        inlineNotices(c, title, doomed);
        continue;
      }
      if (s.chars === 0) continue;
      if ((s.chars <= INITIALS_CHARS && avatar(c)) || reactionCount(c, s.chars, s.prose)) {
        doomed.push(c);
        continue;
      }
      if (isReplyForm(c, s.chars, rootChars)) {
        doomed.push(c);
        continue;
      }
      // An edit notice can read as prose ("Last edited by Bob on Sun Feb 22, 2026, edited 3 times in total.").
      if (s.chars <= PANEL_CHARS && (s.prose === 0 || s.chars <= NOTICE_CHARS)) {
        const t = squash(s.chars <= NOTICE_CHARS ? (c.textContent ?? "") : (firstLine(c, stats) ?? ""));
        if (
          (s.chars <= NOTICE_CHARS && (NOTICES.some((re) => re.test(t)) || (s.prose === 0 && replySubject(t, title)))) ||
          (s.prose === 0 && t.length <= NOTICE_CHARS && PANELS.some((re) => re.test(t)))
        ) {
          doomed.push(c);
          continue;
        }
      }
      if (c.firstElementChild) visit(c);
    }
  };
  visit(root);
  for (const d of doomed) d.remove();
}

/**
 * Notices inside a post's inline text: an edit notice at its end (<span><strong>Edited … by …</strong></span>),
 * a reply's subject line, and a post's number standing apart from any words, beside its date
 * (<a href="#post-2258957">#2</a> · <a>Aug 5, 2023</a>); a "#1" inside a sentence is the poster's.
 */
function inlineNotices(el: Element, title: string, doomed: Element[]): void {
  if (!INLINE_NOTICE.has(el.localName) && el.localName !== "a") return;
  const t = squash(el.textContent ?? "");
  if (t.length > NOTICE_CHARS) return;
  if (
    (t.length <= INITIALS_CHARS && avatar(el)) ||
    BADGE.test(t) ||
    AGE.test(t) ||
    EDIT_NOTICE.test(t) ||
    replySubject(t, title) ||
    (POST_NUMBER.test(t) && standsApart(el))
  )
    doomed.push(el);
  else for (let c = el.firstElementChild; c; c = c.nextElementSibling) inlineNotices(c, title, doomed);
}

/**
 * A post's vote or reaction count left alone on a line ("0", "12"), its button's icon gone: a block
 * holding one number and nothing else (a reaction list of one: <ul><li>1</li></ul>). A number in a
 * table, in code or among other items of a list is the poster's.
 */
const COUNT = /^\d{1,4}$/;
const COUNT_CHARS = 4;
const OWN_NUMBERS = "td, th, dd, pre, code";
const reactionCount = (el: Element, chars: number, prose: number) =>
  chars <= COUNT_CHARS &&
  prose === 0 &&
  COUNT.test(squash(el.textContent ?? "")) &&
  textNodes(el) === 1 &&
  !el.matches(OWN_NUMBERS) &&
  !el.querySelector(OWN_NUMBERS) &&
  !(el.localName === "li" && (el.previousElementSibling || el.nextElementSibling));

/** How many texts other than space `el` holds. */
function textNodes(el: Element): number {
  let n = 0;
  for (let c = el.firstChild; c; c = c.nextSibling)
    n += c.nodeType === 3 ? ((c as Text).data.trim() === "" ? 0 : 1) : c.nodeType === 1 ? textNodes(c as Element) : 0;
  return n;
}

/** An avatar without a picture shows the member's initial ("K"): a picture, not words. */
const INITIALS_CHARS = 1;
const avatar = (el: Element) => /avatar/i.test(el.getAttribute("class") ?? "");

const WORD = /[\p{L}\p{N}]/u;

/** True when no word touches `el`: the text beside it, if any, is space or separators ("·", "|"). */
function standsApart(el: Element): boolean {
  const before = el.previousSibling;
  const after = el.nextSibling;
  return (
    !(before?.nodeType === 3 && WORD.test((before as Text).data)) && !(after?.nodeType === 3 && WORD.test((after as Text).data))
  );
}

/** True when `text` is a reply's subject line: "Re: " and the thread's title (the page's title holds it). */
function replySubject(text: string, title: string): boolean {
  const m = REPLY_SUBJECT.exec(text);
  return m !== null && title.includes((m[2] ?? "").toLowerCase());
}

/**
 * A form that posts (a reply box: "Your Answer", "Post a reply"), small and a small part of the
 * thread: never the posts themselves, which some forums wrap in a form for moderation.
 */
function isReplyForm(el: Element, chars: number, rootChars: number): boolean {
  return (
    el.localName === "form" &&
    chars <= REPLY_FORM_CHARS &&
    chars <= REPLY_FORM_SHARE * rootChars &&
    (el.getAttribute("method") ?? "").toLowerCase() === "post"
  );
}

/** The text of the first block of `el` short enough to be a line (a panel's prompt), or null. */
function firstLine(el: Element, stats: StatsMap): string | null {
  for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
    const s = stats.get(c);
    if (!s) {
      if ((c.textContent ?? "").trim() !== "") return null;
      continue;
    }
    if (s.chars === 0) continue;
    return s.chars <= NOTICE_CHARS ? (c.textContent ?? "") : firstLine(c, stats);
  }
  return null;
}
