/**
 * node --import tsx bench/arena-trace.ts [--seeds 0,1,2] [--family search-agent] [--learner default]
 *   [--setting clean|traps] [--traps 0.15] [--strategies heuristic,threshold] [--every 8] [--full]
 * Where a strategy's rollouts go, per phase of the run (on the TUNING seeds by default, never the
 * evaluation seeds): the share of groups on target-like configs (hidden difficulty at least the
 * target's median), on traps, too easy (p > 0.9), too hard (p < 0.1), capped (not a trap, but the
 * skill explains under 30% of the success variance: a p_max below 1 the policy has reached, which
 * looks like p ~ 1/2 and teaches little), the mean hidden difficulty, the mean useful variance
 * (skill share x p(1-p)) and the target success, tg (100 x skill share x p(1-p) x al: roughly the
 * target success a group adds, the learner's gain shape aside) and al (100 x the target's marginal
 * success per unit of the group's skill update, transfer included: how much the group's skills are the
 * ones the target still needs); per kind of group (the heuristic's keep, mutation, crossover and
 * fresh-sample children; "seed" for every other group): groups, e easy, h hard, t traps,
 * c capped, p mean success, s mean skill share, v mean p(1-p). The oracle (`--strategies oracle`) is
 * the bound to compare with. A diagnosis tool: it reads the hidden learner state, which no strategy may.
 */
import { createRng } from "../lib/families/rng";
import { canonicalJson } from "../lib/families/hash";
import { createWorld } from "../lib/arena/run";
import { engineerStrategy } from "../lib/arena/engineer-strategy";
import { heuristicEngineer } from "../lib/engineer/heuristic";
import { thresholdStrategy, uniformStrategy, plrStrategy, rlveStrategy, oracleStrategy, type StrategyRun } from "../lib/arena/strategies";
import { targetConfigs } from "../lib/arena/world";
import { sigmoid } from "../lib/arena/learner";
import type { ArenaSetting, LearnerId, StrategyId } from "../lib/arena/types";
import type { FamilyConfig } from "../lib/families/types";
import { flagValue } from "./lib";

const argv = process.argv.slice(2);
const arg = (name: string, fallback: string) => flagValue(name, fallback, argv);
const seeds = arg("--seeds", "0,1,2").split(",").map(Number);
const family = arg("--family", "search-agent");
const learner = arg("--learner", "default") as LearnerId;
const setting = arg("--setting", "clean") as ArenaSetting;
const trapShare = Number(arg("--traps", "0.15"));
const every = Number(arg("--every", "8"));
const strategies = arg("--strategies", "heuristic,threshold").split(",") as StrategyId[];
const quick = !argv.includes("--full");

const opOf = new Map<string, string>();
const kindOf = (item: { op: string; flags?: string[]; direction?: string | null; rationale: string }) =>
  item.flags?.includes("crossover")
    ? "cross"
    : item.flags?.includes("fresh_sample")
      ? "fresh"
      : item.op === "mutate"
        ? `mut-${/harder/i.test(item.rationale) ? "harder" : /easier/i.test(item.rationale) ? "easier" : "replay"}`
        : item.op;
const runners: Partial<Record<StrategyId, () => StrategyRun>> = {
  heuristic: () =>
    engineerStrategy(
      (input) => {
        const out = heuristicEngineer(input);
        for (const item of out.items)
          if (item.op !== "retire") opOf.set(canonicalJson(item.config), item.op === "keep" ? "keep" : kindOf(item));
        return out;
      },
      { label: "heuristic" },
    ),
  threshold: () => thresholdStrategy(),
  uniform: () => uniformStrategy(),
  plr: () => plrStrategy(),
  rlve: () => rlveStrategy(),
  oracle: () => oracleStrategy(),
};

interface Bucket {
  groups: number;
  target: number;
  traps: number;
  easy: number;
  hard: number;
  capped: number;
  useful: number;
  tgain: number;
  align: number;
  difficulty: number;
  p: number;
  success: number;
  ops: Record<string, { n: number; easy: number; hard: number; p: number; trap: number; capped: number; share: number; pq: number }>;
  kinds: Record<string, number>;
}

async function trace(strategy: StrategyId, seed: number): Promise<{ buckets: Bucket[]; to50: number | null; to80: number | null }> {
  // the kinds are those of this run's heuristic proposals only (a config another run proposed is not one of them)
  opOf.clear();
  const world = createWorld({ family, strategy, setting, seed, quick, learner, trapShare });
  const targetDifficulty = targetConfigs(world.family, seed, 64, { min: 0.75, max: 1 })
    .map((c) => world.task(c).difficulty)
    .sort((a, b) => a - b);
  const targetMedian = targetDifficulty[Math.floor(targetDifficulty.length / 2)];
  const buckets: Bucket[] = [];
  let batch = 0;
  const run = world.run.bind(world);
  world.run = (configs: readonly FamilyConfig[], opts?: { probe?: boolean }) => {
    const b = Math.floor(batch / every);
    buckets[b] ??= {
      groups: 0,
      target: 0,
      traps: 0,
      easy: 0,
      hard: 0,
      capped: 0,
      useful: 0,
      tgain: 0,
      align: 0,
      difficulty: 0,
      p: 0,
      success: 0,
      ops: {},
      kinds: {},
    };
    const bucket = buckets[b];
    // the target's marginal success per unit of each skill now (the world keeps its target tasks private: no strategy
    // may read them; this diagnosis does, as it reads the learner)
    const targets = (world as unknown as { target: { skills: number[]; difficulty: number }[] }).target;
    const lp = world.learner.params;
    const w = new Array(lp.skills).fill(0);
    for (const t of targets) {
      let x = 0;
      for (let j = 0; j < lp.skills; j++) x += t.skills[j] * world.learner.theta[j];
      const sg = sigmoid(lp.slope * (x - t.difficulty));
      for (let j = 0; j < lp.skills; j++) w[j] += (lp.slope * sg * (1 - sg) * t.skills[j]) / targets.length;
    }
    for (const config of configs) {
      const task = world.task(config);
      const p = world.learner.successProbability(task);
      bucket.groups += 1;
      if (task.trap) {
        bucket.traps += 1;
        bucket.kinds[task.trap] = (bucket.kinds[task.trap] ?? 0) + 1;
      }
      if (task.difficulty >= targetMedian) bucket.target += 1;
      if (p > 0.9) bucket.easy += 1;
      if (p < 0.1) bucket.hard += 1;
      const share = world.learner.skillShare(task);
      const capped = !task.trap && share < 0.3;
      if (capped) bucket.capped += 1;
      bucket.useful += share * p * (1 - p);
      let al = 0;
      for (let j = 0; j < lp.skills; j++) al += w[j] * ((1 - lp.transfer) * task.skills[j] + lp.transfer / lp.skills);
      bucket.align += al;
      bucket.tgain += 100 * share * p * (1 - p) * al;
      bucket.difficulty += task.difficulty;
      bucket.p += p;
      const op = opOf.get(canonicalJson(config)) ?? "seed";
      const o = (bucket.ops[op] ??= { n: 0, easy: 0, hard: 0, p: 0, trap: 0, capped: 0, share: 0, pq: 0 });
      o.share += share;
      o.pq += p * (1 - p);
      if (capped) o.capped += 1;
      if (task.trap) o.trap += 1;
      o.n += 1;
      o.p += p;
      if (p > 0.9) o.easy += 1;
      if (p < 0.1) o.hard += 1;
    }
    batch += Math.max(1, Math.ceil(configs.length / world.batchSize));
    const out = run(configs, opts);
    bucket.success = world.targetSuccess();
    return out;
  };
  await runners[strategy]!()(world, createRng(`arena:strategy:${strategy}:${seed}:${setting}`));
  const cross = (level: number) => {
    const i = world.curve.success.findIndex((s) => s >= level);
    return i < 0 ? null : world.curve.rollouts[i];
  };
  return { buckets, to50: cross(0.5), to80: cross(0.8) };
}

const pct = (x: number, n: number) => (n > 0 ? `${Math.round((100 * x) / n)}`.padStart(3) : "  -");
for (const strategy of strategies) {
  for (const seed of seeds) {
    const { buckets, to50, to80 } = await trace(strategy, seed);
    console.log(`\n${strategy} seed ${seed} ${family} ${learner} ${setting}: to50 ${to50} to80 ${to80}`);
    console.log("batches   groups target% traps% easy% hard% capped% meanDiff meanP useful targetSucc");
    buckets.forEach((b, i) => {
      if (!b) return;
      console.log(
        `${Object.entries(b.ops)
          .map(
            ([k, o]) =>
              `${k}:${o.n}/e${o.easy}/h${o.hard}/t${o.trap}/c${o.capped}/p${(o.p / o.n).toFixed(2)}/s${(o.share / o.n).toFixed(2)}/v${(o.pq / o.n).toFixed(3)}`,
          )
          .join(" ")}\n` +
          (`${String(i * every).padStart(3)}-${String((i + 1) * every - 1).padEnd(4)} ${String(b.groups).padStart(6)}    ` +
            `${pct(b.target, b.groups)}   ${pct(b.traps, b.groups)}  ${pct(b.easy, b.groups)}  ${pct(b.hard, b.groups)}   ${pct(b.capped, b.groups)}    ` +
            `${(b.difficulty / b.groups).toFixed(2).padStart(7)} ${(b.p / b.groups).toFixed(2)}  ` +
            `${(b.useful / b.groups).toFixed(3)}  ${b.success.toFixed(3)}  ` +
            `tg ${(b.tgain / b.groups).toFixed(3)} al ${((100 * b.align) / b.groups).toFixed(2)} ` +
            Object.entries(b.kinds)
              .map(([k, n]) => `${k}:${n}`)
              .join(" ")),
      );
    });
  }
}
