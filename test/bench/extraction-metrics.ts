/** The metrics of the extraction benchmark, exactly as the datasets' evaluate.py compute them. */

// ---- AEB metric: multisets of 4-token shingles of \w+ tokens (case kept) ----
export const WORD = /[\p{L}\p{N}_]+/gu;

export function shingles(text: string): Map<string, number> {
  const tokens = text.match(WORD) ?? [];
  const m = new Map<string, number>();
  if (tokens.length === 0) return m;
  const n = Math.max(1, tokens.length - 3);
  for (let i = 0; i < n; i++) {
    const key = tokens.slice(i, i + 4).join("\u0001");
    m.set(key, (m.get(key) ?? 0) + 1);
  }
  return m;
}

export function aebPageScore(truth: string, pred: string): { p: number | null; r: number | null } {
  const t = shingles(truth);
  const p = shingles(pred);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const [k, c] of p) {
    const tc = t.get(k) ?? 0;
    tp += Math.min(c, tc);
    fp += Math.max(0, c - tc);
  }
  for (const [k, c] of t) fn += Math.max(0, c - (p.get(k) ?? 0));
  const sum = tp + fp + fn;
  if (sum > 0) [tp, fp, fn] = [tp / sum, fp / sum, fn / sum];
  const precision = fp === 0 && fn === 0 ? 1 : tp + fp === 0 ? 0 : tp / (tp + fp);
  const recall = fp === 0 && fn === 0 ? 1 : tp + fn === 0 ? 0 : tp / (tp + fn);
  return { p: tp + fp > 0 ? precision : null, r: tp + fn > 0 ? recall : null };
}

export function aebSummary(scores: { p: number | null; r: number | null }[]) {
  const ps = scores.map((s) => s.p).filter((x): x is number => x !== null);
  const rs = scores.map((s) => s.r).filter((x): x is number => x !== null);
  const P = ps.reduce((a, b) => a + b, 0) / Math.max(1, ps.length);
  const R = rs.reduce((a, b) => a + b, 0) / Math.max(1, rs.length);
  return { P, R, F1: P + R > 0 ? (2 * P * R) / (P + R) : 0 };
}

// ---- WCXB metric: bag of lower-cased \w+ tokens ----
export function bag(text: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of text.toLowerCase().match(WORD) ?? []) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}

export function wcxbPageScore(ref: string, pred: string): { p: number; r: number; f1: number } {
  const rb = bag(ref);
  const pb = bag(pred);
  let nr = 0;
  let np = 0;
  let overlap = 0;
  for (const c of rb.values()) nr += c;
  for (const [k, c] of pb) {
    np += c;
    overlap += Math.min(c, rb.get(k) ?? 0);
  }
  if (nr === 0) return { p: np === 0 ? 1 : 0, r: np === 0 ? 1 : 0, f1: np === 0 ? 1 : 0 };
  if (np === 0) return { p: 0, r: 0, f1: 0 };
  const p = overlap / np;
  const r = overlap / nr;
  return { p, r, f1: p + r > 0 ? (2 * p * r) / (p + r) : 0 };
}

// ---- metadata agreement ----
export const norm = (s: string | null | undefined) =>
  (s ?? "")
    .toLowerCase()
    .normalize("NFKC")
    .replace(/^\s*(by|von|par|por)\s+/, "")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
export const sameText = (got: string | null, want: string) => {
  const a = norm(got);
  const b = norm(want);
  return (
    a.length > 0 &&
    (a === b ||
      (b.length > 0 && (a.includes(b) || b.includes(a)) && Math.min(a.length, b.length) >= 0.6 * Math.max(a.length, b.length)))
  );
};
export const sameDate = (got: string | null, want: string) => {
  const day = (s: string) => {
    const iso = s.match(/\d{4}-\d{2}-\d{2}/)?.[0];
    if (iso) return iso;
    const t = Date.parse(s);
    return Number.isNaN(t) ? s : new Date(t).toISOString().slice(0, 10);
  };
  return got !== null && day(got) === day(want);
};

export class Agreement {
  hits: Record<string, number> = {};
  totals: Record<string, number> = {};
  add(field: string, want: unknown, ok: (want: string) => boolean) {
    if (typeof want !== "string" || want.trim() === "") return;
    this.totals[field] = (this.totals[field] ?? 0) + 1;
    if (ok(want)) this.hits[field] = (this.hits[field] ?? 0) + 1;
  }
  line(field: string) {
    const t = this.totals[field] ?? 0;
    const h = this.hits[field] ?? 0;
    return t === 0 ? "   n/a" : `${((100 * h) / t).toFixed(1).padStart(5)}% (${h}/${t})`;
  }
}
