// Element classes shared by the converters. Written as word lists to keep them readable.

const set = (words: string): ReadonlySet<string> => new Set(words.split(/\s+/).filter(Boolean));

/** Elements whose content is never output: code, styling, embedded documents, media and form controls. */
export const SKIP_TAGS = set(`
  script style noscript template svg math iframe frame frameset object embed canvas head meta link title
  input select option textarea button dialog audio video map`);

/** Elements that start a new line in plain text and are flattened with spaces around them in inline content. */
export const BLOCK_TAGS = set(`
  address article aside blockquote body caption center dd details div dl dt fieldset figcaption figure footer
  form h1 h2 h3 h4 h5 h6 header hgroup hr html li main menu nav ol p pre section summary table tbody td tfoot
  th thead tr ul`);

/**
 * Containers that end the running paragraph and start a new one, their content walked in place
 * (in Markdown and the JSON tree; elements with their own syntax are handled before this applies).
 */
export const PARAGRAPH_TAGS = set(`
  p div section article main header footer aside nav address center form fieldset details summary hgroup
  figure figcaption caption body html li dl dt dd tr td th thead tbody tfoot`);

/** Inline elements with Markdown syntax or a mark of their own; other inline elements are transparent. */
export const INLINE_TAGS = set("a b strong em i s del strike code kbd samp tt img br");
