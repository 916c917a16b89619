/** Number and text pieces the heuristic engineer's rationales are written from. */
import type { FieldEdit } from "@/lib/families/operators";
import type { Dominant, Scored, UnsetStart } from "./model";

export function fmt(x: number, digits = 2): string {
  return x.toFixed(digits);
}

export function showValue(value: unknown): string {
  if (value === undefined) return "unset";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(3)));
  return String(value);
}

export function showEdits(edits: readonly FieldEdit[], starts?: ReadonlyMap<string, UnsetStart>): string {
  return edits
    .map((e) => {
      const start = e.from === undefined ? starts?.get(e.path) : undefined;
      const from = start ? `unset (${start.from === "default" ? "assumed" : "midpoint"} ${showValue(start.value)})` : showValue(e.from);
      return `${e.path} ${from}→${showValue(e.to)}`;
    })
    .join(", ");
}

/** A signature shortened for a rationale, in quotes. */
export function quote(signature: string, max = 60): string {
  const s = signature.replace(/\s+/g, " ").trim();
  return `"${s.length <= max ? s : `${s.slice(0, max - 1)}…`}"`;
}

/** "7 of 10 attempts" or "about 7 of 10 attempts" for a dominant failure. */
export function showCount(d: Dominant, n: number): string {
  return `${d.exact ? "" : "about "}${d.count} of ${n} attempts`;
}

/** "7/8, q 0.88" plus the p_max where it visibly caps the rate; `qSuffix` follows q (e.g. " >= 0.9"). */
export function showRate(sc: Scored, qSuffix = ""): string {
  const { n, s, validation } = sc.member;
  if (n === 0) return "unmeasured";
  const pMax = validation.pMax;
  const cap = typeof pMax === "number" && pMax > 0 && pMax < 0.995 ? `, p_max ${fmt(pMax)}` : "";
  return `${s}/${n}, q ${sc.q === null ? "n/a" : fmt(sc.q)}${qSuffix}${cap}`;
}
