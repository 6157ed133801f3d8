import { ELEMENT_NODE, firstDescendant } from "./dom.ts";

/** The rows of a table in order (thead, tbody, tfoot or bare tr), not those of tables nested in it. */
export function tableRows(table: Element): Element[] {
  const rows: Element[] = [];
  for (let n = table.firstElementChild; n; n = n.nextElementSibling) {
    const tag = n.localName;
    if (tag === "tr") rows.push(n);
    else if (tag === "thead" || tag === "tbody" || tag === "tfoot") {
      for (let r = n.firstElementChild; r; r = r.nextElementSibling) if (r.localName === "tr") rows.push(r);
    }
  }
  return rows;
}

export function rowCells(row: Element): Element[] {
  const cells: Element[] = [];
  for (let n = row.firstChild; n; n = n.nextSibling) {
    if (n.nodeType !== ELEMENT_NODE) continue;
    const tag = (n as Element).localName;
    if (tag === "td" || tag === "th") cells.push(n as Element);
  }
  return cells;
}

function span(cell: Element, name: string, max: number): number {
  const v = Number.parseInt(cell.getAttribute(name) ?? "", 10);
  if (name === "rowspan" && v === 0) return max; // rowspan=0 spans the rest of the section
  return Number.isFinite(v) && v >= 1 ? Math.min(v, max) : 1;
}

/**
 * A table used for layout rather than data: marked presentational, a single column, or one with
 * another table inside. Its cells are output as ordinary blocks instead of a GFM table.
 */
export function isLayoutTable(table: Element, rows: Element[]): boolean {
  const role = table.getAttribute("role");
  if (role === "presentation" || role === "none") return true;
  if (rows.length === 0 || rows.every((r) => rowCells(r).length <= 1)) return true;
  return firstDescendant(table, "table") !== null;
}

/**
 * A grid of cell texts with colspan and rowspan expanded: the spanning cell's text goes in its first
 * slot and the slots it covers stay empty, so that columns line up.
 */
export function tableGrid(rows: Element[], cellText: (cell: Element) => string): { grid: string[][]; header: boolean } {
  const grid: string[][] = rows.map(() => []);
  for (let r = 0; r < rows.length; r++) {
    const line = grid[r] ?? [];
    let c = 0;
    for (const cell of rowCells(rows[r] as Element)) {
      while (line[c] !== undefined) c++;
      const cols = span(cell, "colspan", 100);
      const spanRows = span(cell, "rowspan", rows.length - r);
      const text = cellText(cell);
      for (let dr = 0; dr < spanRows; dr++) {
        const target = grid[r + dr];
        if (!target) continue;
        for (let dc = 0; dc < cols; dc++) target[c + dc] = dr === 0 && dc === 0 ? text : "";
      }
      c += cols;
    }
  }
  const first = rows[0];
  const header =
    first !== undefined && (first.parentElement?.localName === "thead" || rowCells(first).every((c) => c.localName === "th"));
  return { grid, header };
}

/** GFM table lines. Without a header row in the HTML the first row becomes the header (GFM needs one). */
export function gfmTable(grid: string[][]): string[] {
  // A loop, not Math.max(...rows): a table of 150,000 rows spread into one call overflowed the stack.
  let width = 1;
  for (const r of grid) width = Math.max(width, r.length);
  const row = (cells: string[]): string => {
    const out: string[] = [];
    for (let i = 0; i < width; i++) out.push(cells[i] ?? "");
    return `| ${out.join(" | ")} |`;
  };
  const [head = [], ...body] = grid;
  return [row(head), `|${" --- |".repeat(width)}`, ...body.map(row)];
}
