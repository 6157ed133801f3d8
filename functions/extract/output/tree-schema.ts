import { z } from "@hono/zod-openapi";

// The JSON document tree returned as `text` when `format` is `json` (spec 2.5). Blocks hold blocks
// or inline runs; inline runs are text with marks, links, images and line breaks. The converter
// never emits empty nodes, merges adjacent text with the same marks, and makes every URL absolute.

export type DocMark = "bold" | "italic" | "code" | "strike";
export type DocText = { type: "text"; text: string; marks?: DocMark[] };
export type DocLineBreak = { type: "line_break" };
export type DocImage = { type: "image"; src: string; alt: string; title?: string };
export type DocLink = { type: "link"; href: string; title?: string; children: DocInline[] };
export type DocInline = DocText | DocLink | DocImage | DocLineBreak;

export type DocHeading = { type: "heading"; level: number; children: DocInline[] };
export type DocParagraph = { type: "paragraph"; children: DocInline[] };
export type DocListItem = { children: DocBlock[] };
export type DocList = { type: "list"; ordered: boolean; start?: number; items: DocListItem[] };
export type DocTableCell = { children: DocInline[]; colspan?: number; rowspan?: number };
export type DocTable = { type: "table"; caption?: DocInline[]; header?: DocTableCell[][]; rows: DocTableCell[][] };
export type DocCode = { type: "code"; language: string | null; text: string };
export type DocQuote = { type: "quote"; children: DocBlock[] };
export type DocFigure = { type: "figure"; children: DocBlock[]; caption?: DocInline[] };
export type DocHr = { type: "hr" };
export type DocBlock = DocHeading | DocParagraph | DocList | DocTable | DocCode | DocQuote | DocImage | DocFigure | DocHr;
export type DocTree = { type: "document"; children: DocBlock[] };

export const DocMarkSchema = z.enum(["bold", "italic", "code", "strike"]).openapi("DocMark");

export const DocTextSchema = z
  .object({
    type: z.literal("text"),
    text: z.string().min(1),
    marks: z.array(DocMarkSchema).optional().openapi({ description: "Absent for plain text." }),
  })
  .openapi("DocText", { description: "A run of text; whitespace collapsed as a browser renders it." });

export const DocLineBreakSchema = z.object({ type: z.literal("line_break") }).openapi("DocLineBreak");

export const DocImageSchema = z
  .object({
    type: z.literal("image"),
    src: z.string().openapi({ description: "Absolute http(s) URL; data: images are never included." }),
    alt: z.string(),
    title: z.string().optional(),
  })
  .openapi("DocImage", { description: "An image, as a block or inside a run of inline content." });

export const DocInlineSchema: z.ZodType<DocInline> = z
  .lazy(() => z.union([DocTextSchema, DocLinkSchema, DocImageSchema, DocLineBreakSchema]))
  .openapi("DocInline", { description: "Inline content: text, link, image or line_break." });

export const DocLinkSchema: z.ZodType<DocLink> = z
  .object({
    type: z.literal("link"),
    href: z.string().openapi({ description: "Absolute URL." }),
    title: z.string().optional(),
    children: z.array(DocInlineSchema),
  })
  .openapi("DocLink");

const inlines = z.array(DocInlineSchema);

export const DocHeadingSchema = z
  .object({ type: z.literal("heading"), level: z.number().int().min(1).max(6), children: inlines })
  .openapi("DocHeading");

export const DocParagraphSchema = z.object({ type: z.literal("paragraph"), children: inlines }).openapi("DocParagraph");

export const DocCodeSchema = z
  .object({
    type: z.literal("code"),
    language: z.string().nullable().openapi({ description: "From language-x / lang-x / highlighter classes or data-lang." }),
    text: z.string().openapi({ description: "Verbatim, without a trailing newline." }),
  })
  .openapi("DocCode", { description: "A preformatted code block." });

export const DocHrSchema = z.object({ type: z.literal("hr") }).openapi("DocHr");

export const DocTableCellSchema = z
  .object({
    children: inlines,
    colspan: z.number().int().min(2).optional().openapi({ description: "Present when the cell spans columns." }),
    rowspan: z.number().int().min(2).optional().openapi({ description: "Present when the cell spans rows." }),
  })
  .openapi("DocTableCell");

export const DocTableSchema = z
  .object({
    type: z.literal("table"),
    caption: inlines.optional(),
    header: z
      .array(z.array(DocTableCellSchema))
      .optional()
      .openapi({ description: "Header rows (thead, or a leading row of th)." }),
    rows: z.array(z.array(DocTableCellSchema)).openapi({ description: "Body rows, each a list of cells in order." }),
  })
  .openapi("DocTable", { description: "A data table; layout tables are unwrapped into their blocks instead." });

export const DocBlockSchema: z.ZodType<DocBlock> = z
  .lazy(() =>
    z.union([
      DocHeadingSchema,
      DocParagraphSchema,
      DocListSchema,
      DocTableSchema,
      DocCodeSchema,
      DocQuoteSchema,
      DocImageSchema,
      DocFigureSchema,
      DocHrSchema,
    ]),
  )
  .openapi("DocBlock", { description: "Block content: heading, paragraph, list, table, code, quote, image, figure or hr." });

export const DocListSchema: z.ZodType<DocList> = z
  .object({
    type: z.literal("list"),
    ordered: z.boolean(),
    start: z.number().int().optional().openapi({ description: "First number of an ordered list when it is not 1." }),
    items: z.array(z.object({ children: z.array(DocBlockSchema) }).openapi("DocListItem")),
  })
  .openapi("DocList");

export const DocQuoteSchema: z.ZodType<DocQuote> = z
  .object({ type: z.literal("quote"), children: z.array(DocBlockSchema) })
  .openapi("DocQuote");

export const DocFigureSchema: z.ZodType<DocFigure> = z
  .object({ type: z.literal("figure"), children: z.array(DocBlockSchema), caption: inlines.optional() })
  .openapi("DocFigure", { description: "A figure: its content (usually an image) and its caption." });

export const DocTreeSchema: z.ZodType<DocTree> = z
  .object({ type: z.literal("document"), children: z.array(DocBlockSchema) })
  .openapi("DocTree", {
    description:
      "The page content as a document tree (format=json). Blocks: heading, paragraph, list, table, code, quote, image, figure, hr. Inline: text (with marks bold/italic/code/strike), link, image, line_break. URLs are absolute; there are no empty nodes.",
  });
