/** The page as the automation model sees it: see `capture.ts` for how it is read, `render.ts` for the text sent. */

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface PageElement {
  /** The `[index]` the model names; also the element's `data-osprey-idx` attribute until the next capture. */
  index: number;
  /** ARIA role (explicit, else implicit); `clickable` for a plain element with a click handler or a pointer cursor. */
  role: string;
  /** Accessible name (approximation of accname: labelledby, aria-label, labels, alt, title, text). */
  name: string;
  /** Current value of a field; never present for secret fields (passwords, card numbers, one-time codes). */
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
  /** Path of frames from the top: child positions in document order, e.g. "1" or "0/2"; absent in the main frame. */
  frame?: string;
  inShadow?: boolean;
  inViewport: boolean;
  /** In top-page CSS pixels, relative to the viewport. */
  box: Box;
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
  /** Visible text in reading order, `[index]` where each interactive element sits; literal "[12]" in page text is written "(12)". */
  text: string;
  /** A modal `<dialog>` is open: only its elements are listed. */
  modal?: boolean;
  /** Characters of page text dropped to honour `maxTextChars` (element markers are always kept). */
  truncatedChars?: number;
  /** Base64 PNG of the viewport. */
  screenshot?: string;
}

/** What `walkFrame` reads from one frame (before indexes are page-wide). */
export interface RawElement {
  role: string;
  name: string;
  tag: string;
  value?: string;
  type?: string;
  checked?: boolean;
  selected?: boolean;
  expanded?: boolean;
  disabled?: boolean;
  href?: string;
  placeholder?: string;
  options?: string[];
  filled?: boolean;
  inShadow?: boolean;
  box: Box;
}

export interface FrameCapture {
  url: string;
  title: string;
  text: string;
  elements: RawElement[];
  /** Child frames by key (`data-osprey-frame` on the iframe): the content box in this frame's viewport. */
  frames: { key: number; box: Box }[];
  scroll: { x: number; y: number; width: number; height: number; pageWidth: number; pageHeight: number };
  modal: boolean;
}
