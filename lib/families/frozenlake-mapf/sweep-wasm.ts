/**
 * One sweep of the p_max value iteration (solver.ts, reachProbability) in WebAssembly. The sweeps were about 85% of
 * reachProbability's CPU, and reachProbability about two thirds of the heuristic engineer's at 10,000 frozenlake-mapf
 * environments (issue 19); as JavaScript, every typed-array access is bounds-checked. WebAssembly computes the same
 * IEEE-754 doubles as the JavaScript it replaced (no fused multiply-add, round to nearest, the maxima as
 * compare-and-select, not f64.max, and every operation in the same order), so every p_max keeps its bits
 * (solver-equivalence.test.ts compares with the old solver; the proposal snapshot's digests are unchanged). The module
 * is a few dozen instructions, written out here byte by byte rather than shipped as a binary.
 *
 * sweep(value, next, neighbours, live, count, straight, side) -> largest rise, all addresses in bytes into `memory`:
 *   for p in 0..count-1:
 *     i = live[p]                              (Int32 at live + 4p)
 *     v_d = value[neighbours[4i + d]]          (neighbours hold byte offsets from `value`: cell index * 8)
 *     vertical   = straight * (v0 > v2 ? v0 : v2) + side * (v1 + v3)
 *     horizontal = straight * (v1 > v3 ? v1 : v3) + side * (v0 + v2)
 *     best = vertical > horizontal ? vertical : horizontal
 *     diff = best - value[i];  change = diff > change ? diff : change
 *     next[i] = best
 */

const I32 = 0x7f;
const F64 = 0x7c;
// parameters, then locals
const [VALUE, NEXT, NEIGHBOURS, LIVE, COUNT, STRAIGHT, SIDE, P, I, J, V0, V1, V2, V3, CHANGE, VERTICAL, HORIZONTAL, BEST, DIFF] =
  Array.from({ length: 19 }, (_, k) => k);
const op = {
  block: 0x02,
  loop: 0x03,
  br: 0x0c,
  brIf: 0x0d,
  end: 0x0b,
  select: 0x1b,
  i32Load: 0x28,
  f64Load: 0x2b,
  f64Store: 0x39,
  i32GeS: 0x4e,
  f64Gt: 0x64,
  i32Add: 0x6a,
  i32Shl: 0x74,
  f64Add: 0xa0,
  f64Sub: 0xa1,
  f64Mul: 0xa2,
  void: 0x40,
};
const get = (local: number) => [0x20, local];
const set = (local: number) => [0x21, local];
const i32 = (value: number) => [0x41, value]; // small non-negative constants: one LEB128 byte
const i32Load = (offset: number) => [op.i32Load, 2, offset];
const f64Load = [op.f64Load, 3, 0];
const f64Store = [op.f64Store, 3, 0];
/** a > b ? a : b, as the JavaScript wrote it (select keeps the first operand when the condition holds) */
const larger = (a: number, b: number) => [...get(a), ...get(b), ...get(a), ...get(b), op.f64Gt, op.select];
/** the byte address of element `index` (a local) of the doubles at `base` (a local) */
const doubleAt = (base: number, index: number) => [...get(base), ...get(index), ...i32(3), op.i32Shl, op.i32Add];

// prettier-ignore
const body = [
  0x44, 0, 0, 0, 0, 0, 0, 0, 0, ...set(CHANGE), // change = 0.0
  ...i32(0), ...set(P),
  op.block, op.void, op.loop, op.void,
  ...get(P), ...get(COUNT), op.i32GeS, op.brIf, 1, // p >= count: leave the block
  ...get(LIVE), ...get(P), ...i32(2), op.i32Shl, op.i32Add, ...i32Load(0), ...set(I), // i = live[p]
  ...get(NEIGHBOURS), ...get(I), ...i32(4), op.i32Shl, op.i32Add, ...set(J), // j = &neighbours[4i]
  ...[V0, V1, V2, V3].flatMap((v, d) => [...get(VALUE), ...get(J), ...i32Load(4 * d), op.i32Add, ...f64Load, ...set(v)]),
  ...get(STRAIGHT), ...larger(V0, V2), op.f64Mul, ...get(SIDE), ...get(V1), ...get(V3), op.f64Add, op.f64Mul, op.f64Add, ...set(VERTICAL),
  ...get(STRAIGHT), ...larger(V1, V3), op.f64Mul, ...get(SIDE), ...get(V0), ...get(V2), op.f64Add, op.f64Mul, op.f64Add, ...set(HORIZONTAL),
  ...larger(VERTICAL, HORIZONTAL), ...set(BEST),
  ...get(BEST), ...doubleAt(VALUE, I), ...f64Load, op.f64Sub, ...set(DIFF),
  ...larger(DIFF, CHANGE), ...set(CHANGE),
  ...doubleAt(NEXT, I), ...get(BEST), ...f64Store,
  ...get(P), ...i32(1), op.i32Add, ...set(P),
  op.br, 0, op.end, op.end, // next p
  ...get(CHANGE), op.end,
];

function leb128(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n) byte |= 0x80;
    out.push(byte);
  } while (n);
  return out;
}
const vector = (items: number[][]) => [...leb128(items.length), ...items.flat()];
const section = (id: number, content: number[]) => [id, ...leb128(content.length), ...content];
const name = (text: string) => [...leb128(text.length), ...[...text].map((c) => c.charCodeAt(0))];

/** The module: one function type, the memory imported as m.memory, the sweep exported as `sweep`. */
export function sweepModuleBytes(): Uint8Array<ArrayBuffer> {
  const code = [
    ...vector([
      [3, I32],
      [9, F64],
    ]),
    ...body,
  ]; // locals: p, i, j; v0..v3, change, vertical, horizontal, best, diff
  const params = [[I32], [I32], [I32], [I32], [I32], [F64], [F64]];
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0], // "\0asm", version 1
    ...section(1, vector([[0x60, ...vector(params), ...vector([[F64]])]])),
    ...section(2, vector([[...name("m"), ...name("memory"), 0x02, 0x00, 0x01]])), // memory, at least 1 page
    ...section(3, vector([[0]])),
    ...section(7, vector([[...name("sweep"), 0x00, 0]])),
    ...section(10, vector([[...leb128(code.length), ...code]])),
  ]);
}

export type Sweep = (
  value: number,
  next: number,
  neighbours: number,
  live: number,
  count: number,
  straight: number,
  side: number,
) => number;

/** A sweep on its own memory (grow it with `memory.grow`; views on the old buffer are detached by a grow). */
export function createSweep(): { memory: WebAssembly.Memory; sweep: Sweep } {
  const memory = new WebAssembly.Memory({ initial: 1 });
  const instance = new WebAssembly.Instance(new WebAssembly.Module(sweepModuleBytes()), { m: { memory } });
  return { memory, sweep: instance.exports.sweep as Sweep };
}
