/**
 * Where two trajectories part: the first row whose turns differ in role, content (length and the
 * loaded preview) or tool calls (names and arguments), or where one side has ended. Pure: the compare
 * view runs it over the pages it has loaded.
 */
import type { TurnOutline } from "./turn-types";

export type Divergence = { kind: "at"; index: number } | { kind: "none" } | { kind: "unknown"; scanned: number };

/** Whether two turns say the same thing, as far as their outlines tell (ids of tool calls differ between runs and are ignored). */
export function sameTurn(x: TurnOutline, y: TurnOutline): boolean {
  if (x.role !== y.role || x.length !== y.length || x.preview !== y.preview) return false;
  if (x.toolCalls.length !== y.toolCalls.length) return false;
  return x.toolCalls.every((c, i) => {
    const d = y.toolCalls[i];
    return c.name === d.name && c.argumentsLength === d.argumentsLength && c.argumentsPreview === d.argumentsPreview;
  });
}

/** The first differing row of two trajectories given their totals and a lookup of loaded turns (undefined: not loaded yet). */
export function findDivergence(
  totalA: number,
  totalB: number,
  turnA: (i: number) => TurnOutline | undefined,
  turnB: (i: number) => TurnOutline | undefined,
): Divergence {
  const shorter = Math.min(totalA, totalB);
  for (let i = 0; i < shorter; i++) {
    const x = turnA(i);
    const y = turnB(i);
    if (!x || !y) return { kind: "unknown", scanned: i };
    if (!sameTurn(x, y)) return { kind: "at", index: i };
  }
  return totalA === totalB ? { kind: "none" } : { kind: "at", index: shorter };
}
