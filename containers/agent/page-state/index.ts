export { type CaptureOptions, capturePageState, resolveElement } from "./capture.ts";
export { approxTokens, renderPageState } from "./render.ts";
export type { Box, PageElement, PageScroll, PageState } from "./types.ts";
