/** Number formats used across the UI. */

/** A share as a percentage with one decimal, or an em dash. */
export function pct(value: number | null | undefined): string {
  return value === null || value === undefined || Number.isNaN(value) ? "—" : `${(value * 100).toFixed(1)}%`;
}

/** A number with `digits` decimals, or an em dash. */
export function fixed(value: number | null | undefined, digits = 3): string {
  return value === null || value === undefined || Number.isNaN(value) ? "—" : value.toFixed(digits);
}

/** An integer with thousands separators. */
export function count(value: number | null | undefined): string {
  return value === null || value === undefined ? "—" : value.toLocaleString("en-US");
}

const DOLLARS = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** An amount in US dollars with two decimals and thousands separators ($1,234.50), or an em dash. */
export function usd(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? "—" : DOLLARS.format(value);
}

/** A byte size in B, KB or MB. */
export function bytes(value: number | null | undefined): string {
  if (value === null || value === undefined) return "—";
  if (value < 1024) return `${value} B`;
  if (value < 1024 * 1024) return `${(value / 1024).toFixed(1)} KB`;
  return `${(value / 1024 / 1024).toFixed(1)} MB`;
}

const DECIMALS = new Intl.NumberFormat("en-US", { maximumFractionDigits: 3 });

/**
 * Any number as the UI shows it: at most 3 decimals (trailing zeros dropped), thousands separators;
 * tiny non-zero values keep 2 significant digits so they do not read as 0. The one formatter for raw values.
 */
export function num(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return "—";
  if (!Number.isFinite(value)) return value > 0 ? "∞" : "-∞";
  if (value !== 0 && Math.abs(value) < 0.001) return value.toPrecision(2);
  return DECIMALS.format(value);
}

/** A config or metadata value for display: numbers through `num`, objects as JSON with their numbers rounded. */
export function formatValue(value: unknown): string {
  if (typeof value === "number") return num(value);
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return String(value);
  if (typeof value === "object") return roundedJson(value);
  return String(value);
}

/** JSON text whose numbers are rounded like `num` (for display only, never for editing). */
export function roundedJson(value: unknown, indent?: number): string {
  return JSON.stringify(
    value,
    (_k, v) => (typeof v === "number" && Number.isFinite(v) && !Number.isInteger(v) ? Number(num(v).replace(/,/g, "")) : v),
    indent,
  );
}

/** What learnability means, in words: shown wherever the figure is. */
export const LEARNABILITY_HELP =
  "Learnability: how much a policy can still learn from an environment, the expected q × (1 − q) where q is its " +
  "success probability (estimated from s passes in n attempts as Beta(s+1, n−s+1), scaled by the best achievable " +
  "rate). 0.25 at a coin flip, near 0 when it always passes or always fails; with few attempts 0/5 and 5/5 " +
  "score alike.";

/**
 * A moment as the UI shows it everywhere: `2026-11-30 23:47 UTC` (with `seconds`, `23:47:05`). UTC and fixed
 * digits, so the server's render and the browser's hydration agree and every page reads the same; an em dash when absent.
 */
export function dateTime(value: string | Date | null | undefined, options: { seconds?: boolean } = {}): string {
  if (value === null || value === undefined || value === "") return "—";
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return "—";
  const iso = date.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, options.seconds ? 19 : 16)} UTC`;
}

/**
 * The pass@k values a results row shows: k = 1, 2, 5, 10, 20, 50, ... and the largest k (the row's attempts), so a row of
 * 14,651 attempts reads like a row of 8.
 */
export function passAtKShown(curve: Record<string, number>): [number, number][] {
  const ks = Object.keys(curve)
    .map(Number)
    .sort((a, b) => a - b);
  const last = ks[ks.length - 1];
  const round = (k: number) => /^(1|2|5)0*$/.test(String(k));
  return ks.filter((k) => round(k) || k === last).map((k) => [k, curve[String(k)]]);
}
