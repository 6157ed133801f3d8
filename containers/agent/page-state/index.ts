export {
  type CaptureOptions,
  capturePageState,
  findMarked,
  resolveElement,
  type StateScope,
  VIEWPORT_MARGIN_PX,
} from "./capture.ts";
export { approxTokens, renderPageState } from "./render.ts";
export type { Box, OutsideScope, PageElement, PageScroll, PageState } from "./types.ts";
