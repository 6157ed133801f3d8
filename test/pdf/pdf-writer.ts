/**
 * A tiny PDF writer for tests: pages of text lines in Helvetica (a standard font, nothing embedded),
 * an optional Info dictionary, and options to make the file broken in the ways real ones are.
 */

export interface PdfInfo {
  title?: string;
  author?: string;
  /** A raw PDF date string, e.g. "D:20240315103000+02'00'". */
  creationDate?: string;
}

export interface PdfSpec {
  /** One entry per page: its lines of text (an empty array gives a page without text). */
  pages: string[][];
  info?: PdfInfo;
  /** Adds an /Encrypt dictionary whose password check cannot pass. */
  encrypted?: boolean;
  /** Draws a rectangle on each page (content without text). */
  drawing?: boolean;
}

/** A PDF literal string: ASCII as `( … )` with escapes, anything else as UTF-16BE hex with a BOM. */
export function pdfString(s: string): string {
  if (/^[\x20-\x7e]*$/.test(s)) return `(${s.replace(/[\\()]/g, (c) => `\\${c}`)})`;
  let hex = "FEFF";
  for (let i = 0; i < s.length; i++) hex += s.charCodeAt(i).toString(16).padStart(4, "0").toUpperCase();
  return `<${hex}>`;
}

/** A string shown with the WinAnsi-encoded font: ASCII as is, Latin-1 as octal escapes. */
function shownString(s: string): string {
  let out = "";
  for (const c of s) {
    const code = c.charCodeAt(0);
    if (code > 0xff) throw new Error(`pdf-writer: ${c} is outside Latin-1`);
    out += "\\()".includes(c) ? `\\${c}` : code < 0x20 || code > 0x7e ? `\\${code.toString(8).padStart(3, "0")}` : c;
  }
  return `(${out})`;
}

function contentStream(lines: string[], drawing: boolean): string {
  const ops: string[] = [];
  if (drawing) ops.push("0.5 g 72 72 200 100 re f");
  if (lines.length > 0) {
    ops.push("BT /F1 12 Tf 14 TL 72 720 Td");
    for (const line of lines) ops.push(`${shownString(line)} Tj T*`);
    ops.push("ET");
  }
  return ops.join("\n");
}

export function writePdf(spec: PdfSpec): Uint8Array {
  const objects: string[] = []; // objects[i] is object number i + 1
  const add = (body: string): number => {
    objects.push(body);
    return objects.length;
  };
  const catalog = add(""); // filled in once the page tree exists
  const pagesObj = add("");
  const font = add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");
  const kids: number[] = [];
  for (const lines of spec.pages) {
    const content = contentStream(lines, spec.drawing ?? false);
    const stream = add(`<< /Length ${Buffer.byteLength(content, "latin1")} >>\nstream\n${content}\nendstream`);
    kids.push(
      add(
        `<< /Type /Page /Parent ${pagesObj} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${stream} 0 R >>`,
      ),
    );
  }
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pagesObj} 0 R >>`;
  objects[pagesObj - 1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(" ")}] /Count ${kids.length} >>`;

  let infoRef = "";
  if (spec.info) {
    const entries: string[] = [];
    if (spec.info.title !== undefined) entries.push(`/Title ${pdfString(spec.info.title)}`);
    if (spec.info.author !== undefined) entries.push(`/Author ${pdfString(spec.info.author)}`);
    if (spec.info.creationDate !== undefined) entries.push(`/CreationDate ${pdfString(spec.info.creationDate)}`);
    infoRef = ` /Info ${add(`<< ${entries.join(" ")} >>`)} 0 R`;
  }
  let encryptRef = "";
  if (spec.encrypted) {
    const junk = `<${"00".repeat(32)}>`;
    encryptRef = ` /Encrypt ${add(`<< /Filter /Standard /V 2 /R 3 /Length 128 /O ${junk} /U ${junk} /P -44 >>`)} 0 R`;
  }

  let out = "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, "latin1"));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, "latin1");
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) out += `${String(off).padStart(10, "0")} 00000 n \n`;
  const id = `<${"ab".repeat(16)}>`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R${infoRef}${encryptRef} /ID [${id} ${id}] >>\n`;
  out += `startxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(out, "latin1"));
}
