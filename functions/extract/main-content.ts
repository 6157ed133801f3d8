/**
 * Main-content extraction: prune page furniture, score what is left, choose the element that
 * holds the content, then clean inside it.
 *
 * Two candidates are computed on the pruned page: the best-scoring subtree (all text blocks,
 * link text counted against) and the prose core (where paragraphs concentrate). Which one wins
 * depends on the page kind: discussions and shop grids keep the best subtree (every post, every
 * item); articles grow the core outwards while each step adds content-like text; products take
 * the smallest element holding both the product name and the description, grown over the
 * description sections below it (content/product.ts); a root that lies in one of many blocks of
 * one make (listing entries, page-builder sections) widens to all of them (content/listing.ts). In a
 * thread, quotes of posts shown on the page and the chrome repeated in every post go, and on a Q&A
 * page the comments under the question and answers (content/discussion.ts); on shop and listing
 * pages, facet panels (content/facets.ts); on any page, the field labels every card of a grid repeats
 * (content/field-labels.ts); on product pages, customer reviews (content/reviews.ts), shipping and
 * returns panels (content/policies.ts) and the notices above the product's name.
 * Never returns nothing while the page has text: when scoring finds no clear root, <main>,
 * <article> or <body> is used.
 * The page's title heading comes back beside the root when the root does not show it
 * (content/title-heading.ts).
 */

import { dropAppeals } from "./content/appeals.ts";
import { dropAuthorBio, dropLabelledBios, dropNamedBios } from "./content/author-bio.ts";
import { dropBadges } from "./content/badges.ts";
import { dropCarousels, dropOtherProductSections } from "./content/carousel.ts";
import { cleanupRoot } from "./content/cleanup.ts";
import { dropClosingDisclaimer } from "./content/closing-disclaimer.ts";
import { dropClosingHeadings, dropClosingLinkLine } from "./content/closing-heading.ts";
import { checkboxLabels, dropCheckboxLabels, dropRepeatedControls } from "./content/control-labels.ts";
import { expandCore, expandFrom, findCore, ownMain } from "./content/core.ts";
import { dropCtaBoxes } from "./content/cta-boxes.ts";
import { dropPostChrome, dropThreadNotices } from "./content/discussion.ts";
import { dropDismissibleNotices } from "./content/dismissible.ts";
import { textStats } from "./content/dom.ts";
import { dropEchoedText } from "./content/echoes.ts";
import { dropFacetPanels } from "./content/facets.ts";
import { dropFeedbackPrompts } from "./content/feedback.ts";
import { dropFieldLabels } from "./content/field-labels.ts";
import { dropHeadDates } from "./content/head-dates.ts";
import { isListPage, widenToGrid } from "./content/listing.ts";
import { dropMobileCopies } from "./content/mobile-copies.ts";
import { dropMobileSignatures } from "./content/mobile-signature.ts";
import { dropOtherThreads } from "./content/other-threads.ts";
import { ownPostBesidePosts } from "./content/own-post.ts";
import { pageKind } from "./content/page-kind.ts";
import { dropPolicyPanels } from "./content/policies.ts";
import { prunedByline } from "./content/post-byline.ts";
import { isPostIndex } from "./content/post-index.ts";
import { threadRoot } from "./content/posts-root.ts";
import { dropBuyBox, productRoot, trimProductHead } from "./content/product.ts";
import { pruneDocument } from "./content/prune.ts";
import { dropQuotedPosts } from "./content/quoted-posts.ts";
import { dropRatingInputs } from "./content/rating-input.ts";
import { dropRepeatedBylines } from "./content/repeated-bylines.ts";
import { dropCardCopies, dropRepeatedBlocks } from "./content/repeats.ts";
import { dropReviews } from "./content/reviews.ts";
import { innerRoot, pickRoot, type StatsMap, scoreTree } from "./content/score.ts";
import { dropSignUpTerms } from "./content/sign-up-terms.ts";
import { dropStandfirst } from "./content/standfirst.ts";
import { dropStatusMessages } from "./content/status-messages.ts";
import { placeStreamedContent } from "./content/streaming.ts";
import { dropTagLists } from "./content/tag-lists.ts";
import { dropTeaserGrids } from "./content/teaser-grid.ts";
import { dropTeaserSections } from "./content/teasers.ts";
import { dropTitleEcho } from "./content/thread-title.ts";
import { findTitleHeading, titleForRoot } from "./content/title-heading.ts";

/** The prose core is trusted on any page when it holds this share of the best subtree's prose. */
const CORE_SHARE = 0.6;
/** An article's root holds at least this share of the page's prose; less, and the page is sections. */
const SECTIONS_SHARE = 0.3;

export interface MainContent {
  /** The element holding the main content. */
  root: Element;
  /** The page's <h1>, to show before `root`, when it lies outside it or the cleanup removed it. */
  title: Element | null;
}

/**
 * Returns the element holding the page's main content (the document is modified: furniture is
 * removed) and the title heading it lacks, or null when the page has no text at all. With `clean`
 * false the chosen element comes back as the scoring chose it, without the cleanup inside it
 * (furniture, calls to action, teasers...): for a second reading when the cleanup left nothing
 * (see extract.ts).
 */
export function extractMainContent(
  document: Document,
  url: string,
  clean = true,
  author: string | null = null,
): MainContent | null {
  const body = document.body ?? document.documentElement;
  if (!body) return null;
  const kind = pageKind(document, url);
  const { article: articleLike, product, collection } = kind;
  const host = hostOf(url);
  // Before pruning: page headers, where the headline often sits, are pruned as furniture.
  const titleHeading = findTitleHeading(document, body, url);
  placeStreamedContent(body);
  // Before pruning: the checkboxes that say which labels are theirs go with the junk.
  const boxLabels = checkboxLabels(body);
  // On category pages a list named as recirculation can be the page's own (content/own-list.ts).
  // In a thread, the post bylines inside pruned furniture stay (content/post-byline.ts).
  const { comments } = pruneDocument(body, collection && !product, kind.discussion ? prunedByline : undefined);
  // Comment sections go, except on discussion pages where the posts are the content, and pages
  // that are nothing but their comments (a link aggregator's story page: a link and its thread).
  const discussion = kind.discussion || onlyComments(body, comments);
  // On a Q&A page the answers are the posts; the comment threads under a question or answer go,
  // unless they hold most of the page (a site that marks its answers up as comments).
  if (!discussion || (kind.qa && asides(body, comments))) for (const c of comments) c.remove();
  const stats = scoreTree(body);
  const shopGrid = collection && !product && !discussion;
  const bodyStats = stats.get(body);
  if (!bodyStats || bodyStats.chars === 0) return null;
  const best = pickRoot(stats, body);
  const core = findCore(stats);
  let root = best;
  let article = false;
  let sections = false;
  /** The root was grown from the prose core (its siblings merged or left behind), not taken as scored. */
  let grown = false;
  // Shop and category pages keep the best-scoring subtree: their grid is the content, not prose.
  if (!discussion && !shopGrid && core && best !== core.el && best.contains(core.el)) {
    // An article element around the core bounds it: what lies outside is page furniture.
    const articleEl = core.el.closest("article, [itemprop=articleBody]");
    const coreProse = stats.get(core.el)?.prose ?? 0;
    const bestProse = stats.get(best)?.prose ?? 0;
    // A post beside a block of other posts that outweighs it is the root (content/own-post.ts).
    const ownPost = ownPostBesidePosts(core.el, best, stats);
    // A core without prose (a table's rows outvoting the two paragraphs above it) does not bound
    // the article: grown from it, the root stops at the table (WCXB 0103 0.554 -> 1.000).
    const proseless = stats.has(core.el) && coreProse === 0;
    if (ownPost) {
      root = ownPost;
      article = true;
      grown = true;
    } else if (articleEl && !proseless && best.contains(articleEl) && isLoneArticle(articleEl, best, stats)) {
      root = expandCore(core, articleEl, stats, true, host);
      article = true;
      grown = true;
    } else if (product) {
      root = productRoot(core.el, best, stats, !articleLike);
      grown = true;
    } else if (coreProse > 0 && (articleLike || coreProse >= CORE_SHARE * bestProse)) {
      root = expandCore(core, best, stats, articleLike, host);
      article = articleLike;
      grown = true;
      // A page typed as an article (CMSs type every page so) whose article-bounded root holds a
      // small share of the prose is a page of many sections (a service or landing page): it
      // grows as pages do, over the sections, and is cleaned as a page.
      if (articleLike && (stats.get(root)?.prose ?? 0) < SECTIONS_SHARE * bestProse) {
        root = expandFrom(root, best, stats, false);
        article = false;
        sections = true;
        // A core that is not the story (a footer's address line outvoting a story printed as bare
        // text beside link columns) grows nowhere: the page is read as untyped pages are.
        if (coreProse < CORE_SHARE * bestProse && (stats.get(root)?.prose ?? 0) < SECTIONS_SHARE * bestProse) root = best;
      }
    }
  }
  // A root inside one block of many of one make (a listing's entry, a page builder's section)
  // that together outweigh it: the blocks are the page (content/listing.ts).
  let listing = false;
  if (!discussion && !shopGrid && !product && root !== best) {
    const wide = widenToGrid(root, best, stats, articleLike);
    if (wide) {
      root = wide;
      article = false;
      listing = true;
    }
  }
  // An index of posts typed as an article: linked entry titles over short excerpts (content/post-index.ts).
  if (articleLike && !discussion && !product && !listing && isPostIndex(root, stats)) {
    article = false;
    listing = true;
  }
  // A thread of short posts can score no higher than the page around it, or with the furniture
  // around it: the posts say where it is (content/posts-root.ts).
  if (discussion) root = threadRoot(root, body, stats);
  // The best subtree pulled up a level by leftovers beside its content: the page's one <main> when
  // it holds most of it (content/core.ts ownMain), then the child that holds nearly all of it
  // (content/score.ts innerRoot). A root grown from the core keeps what the growth kept.
  if (root === best && !grown && !discussion) root = innerRoot(ownMain(root, stats) ?? root, stats);
  const rootStats = stats.get(root);
  const chosen = rootStats && rootStats.chars > 0 && rootStats.score > 0 ? root : fallbackRoot(document, body);
  if (!clean) return { root: chosen, title: titleForRoot(titleHeading, chosen, stats) };
  // A checkbox's label ("Compare" on every card) without its box.
  dropCheckboxLabels(chosen, boxLabels);
  // A script's messages to screen readers ("Loaded 338 results", "Added to list").
  dropStatusMessages(chosen);
  // A site's announcements with a control to dismiss them (content/dismissible.ts).
  dropDismissibleNotices(chosen);
  // The same scripted button on every card ("Add to wishlist").
  dropRepeatedControls(chosen);
  // A star-rating input on every entry ("Rate this book", "1 of 5 stars" ... "5 of 5 stars").
  dropRatingInputs(chosen);
  // The widget that asks the reader to judge the page ("Was this helpful?", "Rate this article").
  if (!discussion) dropFeedbackPrompts(chosen, stats);
  // What a sign-up or contact form binds its sender to ("By clicking Subscribe, you agree to ...").
  if (!discussion) dropSignUpTerms(chosen);
  if (discussion) {
    dropQuotedPosts(chosen);
    dropPostChrome(chosen, stats);
    dropThreadNotices(chosen, stats);
    // The thread's title heading is the page's title, given apart (and put back in front of the
    // rendered thread by titleForRoot): the text is what was posted.
    const h1 = titleHeading?.el;
    if (h1 && h1 !== chosen && chosen.contains(h1)) h1.remove();
    // The title again as a heading above the posts (content/thread-title.ts).
    dropTitleEcho(chosen, stats);
    // "Sent from my iPhone using Tapatalk" under a post (content/mobile-signature.ts).
    dropMobileSignatures(chosen);
    // A post's name or date on two lines in a row, from its wide and narrow layouts (content/repeated-bylines.ts).
    dropRepeatedBylines(chosen);
  }
  // Lists of other threads under or beside the thread ("Related discussions", "Recent conversations").
  dropOtherThreads(chosen, stats);
  // Labelled sections of linked cards to other pages ("From our blog", "Featured insights").
  dropTeaserSections(chosen, stats);
  dropTagLists(chosen);
  if (host && (article || (articleLike && !sections && !discussion && !product && !listing)))
    dropTeaserGrids(chosen, stats, host, core?.el ?? null);
  // A story's standfirst that repeats the description; a landing page's hero line does too, and stays.
  if (articleLike && !discussion) dropStandfirst(chosen);
  if (product && !articleLike) dropBuyBox(chosen, stats);
  // What the root shows above the product's name: badges, notices, a gallery's labels.
  if (product && !discussion) trimProductHead(chosen, stats, chosen.querySelector("h1"));
  // Customer reviews: prose about the product, kept by the first pass, not its description.
  if (product && !discussion) dropReviews(chosen, stats);
  // The shop's shipping and returns terms, shown in a panel beside the description.
  if (product && !discussion) dropPolicyPanels(chosen, stats, chosen.querySelector("h1") ?? titleHeading?.el ?? null);
  // Strips of other products on a product page; on a category page all but its own grid.
  if (((product && !collection) || shopGrid) && !discussion)
    dropCarousels(chosen, stats, chosen.querySelector("h1") ?? titleHeading?.el ?? null, shopGrid);
  // Sections a product page titles as other products ("Similar items"), whatever their cards.
  if (product && !discussion) dropOtherProductSections(chosen, stats, chosen.querySelector("h1") ?? titleHeading?.el ?? null);
  // Filter panels of category and search pages ("Filters", "Refine by": brands, prices, sizes).
  if (!articleLike || sections || shopGrid || listing) dropFacetPanels(chosen, stats);
  // Labels printed on every card of a grid ("Brand Name", "Price").
  dropFieldLabels(chosen);
  // A flag many cards of a category page share ("Best seller", "New arrival").
  if ((collection || listing) && !discussion) dropBadges(chosen);
  const articleRoot = article || (articleLike && !sections && !discussion && !product && !listing);
  // The publisher's pitch boxes set in a dated story ("post-cta": "Book a demo"); a page typed an
  // article by og:type alone (a service page) keeps them.
  if (articleRoot && kind.story) dropCtaBoxes(chosen);
  cleanupRoot(chosen, stats, {
    article: articleRoot,
    grids: !articleLike || sections || shopGrid || listing,
    shop: shopGrid,
    forms: !discussion && !product,
    // An article that is an index of links ("List of ..."): its lists are what it says.
    lists: articleLike && !discussion && !product && isListPage(chosen, stats),
    host,
    url,
  });
  // A post's dateline, split over elements of its own (content/head-dates.ts); on article pages
  // read again after the cleanup, which knows no "3 MIN. READ".
  if (!discussion && !product && !shopGrid && !listing) dropHeadDates(chosen, stats);
  // The bio of the page's own author under the story ("Jane Doe is a freelance writer...").
  if (author && articleLike && !discussion) dropAuthorBio(chosen, author);
  // A bio box under its label ("About the reviewer", "Written by"): content/author-bio.ts.
  if (articleLike && !discussion) dropLabelledBios(chosen);
  if (articleLike && !discussion) dropNamedBios(chosen);
  // The publisher's appeal for readers' support under the story (content/appeals.ts).
  if (articleLike && !discussion && !product && !listing && !sections) dropAppeals(chosen);
  // The same block twice (a responsive layout's wide and narrow copies): the reader sees one.
  dropRepeatedBlocks(chosen, stats);
  // A phone layout's copy of a block shown elsewhere ("d-block d-md-none"): content/mobile-copies.ts.
  dropMobileCopies(chosen);
  // A label printed twice, once for screen readers (content/echoes.ts).
  dropEchoedText(chosen);
  // A card of a grid that prints its name or price twice (a shop theme's two layouts of one card).
  if (!articleLike || shopGrid || listing) dropCardCopies(chosen, stats);
  // The site's disclaimer closing the article ("Disclaimer: this post is not medical advice").
  if (articleLike && !discussion && !product && !listing) dropClosingDisclaimer(chosen);
  // A heading left last with nothing under it ("Related Posts" over cards that went).
  if (articleLike && !discussion && !product && !listing) dropClosingHeadings(chosen);
  if (articleLike && !discussion && !product && !listing) dropClosingLinkLine(chosen);
  const found = textStats(chosen).chars > 0 ? chosen : body;
  return { root: found, title: titleForRoot(titleHeading, found, stats) };
}

/** The page's host without "www.", or undefined for a URL that does not parse. */
function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase().replace(/^www\./, "");
  } catch {
    return undefined;
  }
}

/** Text outside the comment sections below which the comments are the page. */
const BARE_PAGE_CHARS = 200;

function onlyComments(body: Element, comments: Element[]): boolean {
  if (comments.length === 0) return false;
  const inComments = comments.reduce((n, c) => n + textStats(c).chars, 0);
  const outside = textStats(body).chars - inComments;
  return outside < BARE_PAGE_CHARS && inComments > 2 * BARE_PAGE_CHARS;
}

/** True when the comment sections hold less text than the rest of the page. */
function asides(body: Element, comments: Element[]): boolean {
  if (comments.length === 0) return false;
  const inComments = comments.reduce((n, c) => n + textStats(c).chars, 0);
  return inComments < textStats(body).chars - inComments;
}

function fallbackRoot(document: Document, body: Element): Element {
  for (const sel of ["main", "[role=main]", "article"]) {
    const el = document.querySelector(sel);
    if (el && textStats(el).chars > 0) return el;
  }
  return body;
}

/** True when no other article in `scope` comes close to `article` in prose (listings hold many). */
function isLoneArticle(article: Element, scope: Element, stats: StatsMap): boolean {
  const prose = stats.get(article)?.prose ?? 0;
  if (prose === 0) return false;
  for (const other of scope.querySelectorAll("article, [itemprop=articleBody]")) {
    if (other === article || other.contains(article) || article.contains(other)) continue;
    if ((stats.get(other)?.prose ?? 0) >= 0.3 * prose) return false;
  }
  return true;
}
