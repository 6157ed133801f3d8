/** The page as the automation model sees it: see `capture.ts` for how it is read, `render.ts` for the text sent. */

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** What `walkFrame` reads from one frame (before indexes are page-wide). */
export interface RawElement {
  /** ARIA role (explicit, else implicit); `clickable` for a plain element with a click handler or a pointer cursor. */
  role: string;
  /** Accessible name (approximation of accname: labelledby, aria-label, labels, alt, title, text). */
  name: string;
  /**
   * Current value of a field; never present for secret fields (passwords, card numbers, one-time
   * codes, and fields masked with -webkit-text-security, which is how fill_credential marks them).
   */
  value?: string;
  tag: string;
  type?: string;
  checked?: boolean;
  selected?: boolean;
  expanded?: boolean;
  disabled?: boolean;
  href?: string;
  placeholder?: string;
  /** A select's options (the first few). */
  options?: string[];
  /** A secret field holds a value (its value itself is never read out). */
  filled?: boolean;
  inShadow?: boolean;
  /** CSS pixels relative to the viewport: of its own frame as walked, of the top page in a PageElement. */
  box: Box;
}

/** An element as the model sees it: what the walk read, numbered page-wide and placed among frames. */
export interface PageElement extends RawElement {
  /** The `[index]` the model names; also the element's `data-osprey-idx` attribute until the next capture. */
  index: number;
  /** Path of frames from the top: child positions in document order, e.g. "1" or "0/2"; absent in the main frame. */
  frame?: string;
  inViewport: boolean;
}

export interface PageScroll {
  x: number;
  y: number;
  /** Viewport size. */
  width: number;
  height: number;
  pageWidth: number;
  pageHeight: number;
}

export interface PageState {
  /** Id of this capture: `resolveElement` refuses indexes of a state older than the page's last capture. */
  capture: string;
  url: string;
  title: string;
  scroll: PageScroll;
  elements: PageElement[];
  /**
   * Visible text in reading order, `[index]` where each interactive element sits; literal "[12]" in
   * page text is written "(12)". Beyond a viewport's height from the viewport only headings and the
   * elements with the start of their own text are kept, other text counted in `(… n characters)` lines.
   */
  text: string;
  /** A modal `<dialog>` is open: only its elements are listed. */
  modal?: boolean;
  /** Characters of page text far from the viewport left out, where `(… n characters)` lines stand (see `abridge`). */
  abridgedChars?: number;
  /** Characters of page text dropped to honour `maxTextChars` (element markers are always kept). */
  truncatedChars?: number;
  /** Base64 PNG of the viewport. */
  screenshot?: string;
  /**
   * A viewport-scoped state (see `CaptureOptions.scope`) with content left out: per side, the
   * pixels of page beyond the margin, and the elements and characters of text there.
   */
  outside?: { above: OutsideScope; below: OutsideScope };
}

export interface OutsideScope {
  px: number;
  elements: number;
  chars: number;
}

export interface FrameCapture {
  url: string;
  title: string;
  text: string;
  elements: RawElement[];
  /** Child frames by key (`data-osprey-frame` on the iframe): the content box in this frame's viewport. */
  frames: { key: number; box: Box }[];
  scroll: PageScroll;
  modal: boolean;
}
