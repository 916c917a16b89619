/**
 * The demo project: a simulated curriculum on `frozenlake-mapf`, several generations deep, made
 * by our own simulators (the family's generator and validator, and a simulated learner whose
 * success follows the family's hidden difficulty). Deterministic for its seed.
 */
import { and, eq } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { environments, projects } from "@/lib/db/schema";
import { getBuiltinFamily } from "@/lib/families/registry";
import { mutateConfig, stepHarder } from "@/lib/families/operators";
import { createRng, type Rng } from "@/lib/families/rng";
import type { FamilyConfig, FamilyDefinition } from "@/lib/families/types";
import { createProject } from "@/lib/projects/service";
import { createGeneration } from "@/lib/generations/service";
import { ingestRollouts, type IngestLine } from "@/lib/ingest/store";
import type { RolloutInput } from "@/lib/ingest/normalized";

export const DEMO_SLUG = "demo-frozenlake";
const ACTOR = { actor: "system:demo" };
/** Attempts per environment and generation (a GRPO-style group). */
const ATTEMPTS = 8;

interface DemoEnv {
  key: string;
  config: FamilyConfig;
  parentKey?: string;
  direction?: "horizon" | "uncertainty" | "precision" | "diversify";
}

function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

/** The simulated learner's success probability on a config at a given skill level. */
export function demoSuccessProbability(family: FamilyDefinition, config: FamilyConfig, skill: number): number {
  const est = family.difficulty?.(config);
  if (!est) return 0.5;
  return est.pMax * sigmoid(2.2 * (skill - est.difficulty));
}

function simulateRollouts(family: FamilyDefinition, rng: Rng, gen: number, envs: DemoEnv[], skill: number, attempts: number): RolloutInput[] {
  const policy = `demo-policy-step${gen * 200}`;
  const out: RolloutInput[] = [];
  for (const env of envs) {
    const p = demoSuccessProbability(family, env.config, skill);
    for (let a = 0; a < attempts; a++) {
      const ok = rng.next() < p;
      const steps = Math.max(2, Math.round(((env.config.size as number) ?? 4) * (1 + rng.next())));
      const timeout = !ok && rng.next() < 0.35;
      const infra = !ok && !timeout && rng.next() < 0.03;
      const trajectory = [
        { role: "system" as const, content: `You control ${env.config.num_agents} agent(s) on a ${env.config.size}x${env.config.size} frozen lake. Reach every goal.` },
        { role: "user" as const, content: "Observation: map rendered; agents at their starts." },
        ...Array.from({ length: Math.min(steps, 12) }, (_, i) => ({
          role: "assistant" as const,
          content: `step ${i + 1}: move ${["up", "down", "left", "right"][Math.floor(rng.next() * 4)]}`,
        })),
      ];
      out.push({
        externalId: `demo-g${gen}-${env.key}-a${a}`,
        environmentKey: env.key,
        generation: gen,
        policy,
        reward: infra ? undefined : ok ? 1 : 0,
        status: timeout || infra ? "errored" : "completed",
        error: timeout
          ? { type: "AgentTimeoutError", message: `Agent exceeded max_steps=${env.config.max_steps}` }
          : infra
            ? { type: "SandboxError", message: "Simulator worker crashed before the verdict" }
            : undefined,
        turns: trajectory.filter((m) => m.role === "assistant").length,
        inputTokens: 400 + steps * 90,
        outputTokens: 30 + steps * 12,
        trajectory,
        verifierOutput: infra
          ? "Fatal Python error: Segmentation fault (simulator worker)"
          : ok
            ? "all agents reached their goals"
            : `FAILED test_goals::agent_${Math.floor(rng.next() * Number(env.config.num_agents ?? 1))}_reaches_goal - fell into a hole`,
      });
    }
  }
  return out;
}

async function* asLines(rows: RolloutInput[]): AsyncIterable<IngestLine> {
  let line = 0;
  for (const value of rows) yield { line: ++line, value };
}

/** Seed the demo project on first start; returns its slug when created, null when it exists. */
export async function seedDemo(db: Db, opts: { generations?: number; populationSize?: number; seed?: number } = {}): Promise<string | null> {
  const [existing] = await db.select({ id: projects.id }).from(projects).where(eq(projects.slug, DEMO_SLUG));
  if (existing) return null;
  const family = getBuiltinFamily("frozenlake-mapf");
  if (!family) throw new Error("frozenlake-mapf family missing");
  const rng = createRng(opts.seed ?? 20261130);
  const size = opts.populationSize ?? 24;
  const totalGenerations = opts.generations ?? 4;
  const project = await createProject(db, { slug: DEMO_SLUG, name: "Demo: FrozenLake MAPF curriculum", family: family.id }, ACTOR, { demo: true });

  let counter = 0;
  const newKey = () => `fl-${String(++counter).padStart(4, "0")}`;
  let population: DemoEnv[] = Array.from({ length: size }, () => ({ key: newKey(), config: family.sample(rng, { hardness: { min: 0.15, max: 0.6 } }) }));
  let skill = -1.6;

  for (let gen = 0; gen < totalGenerations; gen++) {
    await createGeneration(
      db,
      project,
      family,
      { index: gen, environments: population.map((e) => ({ key: e.key, config: e.config, parentKey: e.parentKey, direction: e.direction })) },
      ACTOR.actor,
      gen === 0 ? "seed" : "proposal",
    );
    for (const env of population) {
      const v = family.validate(env.config);
      await db
        .update(environments)
        .set({ validationState: v.state, pMax: v.pMax ?? null })
        .where(and(eq(environments.projectId, project.id), eq(environments.key, env.key)));
    }
    const rows = simulateRollouts(family, rng, gen, population, skill, ATTEMPTS);
    await ingestRollouts(db, project, family, asLines(rows));

    // next population: keep the frontier, push solved ones harder, replace hopeless ones
    const rates = new Map<string, number>();
    for (const r of rows) rates.set(r.environmentKey, (rates.get(r.environmentKey) ?? 0) + (r.reward === 1 ? 1 / ATTEMPTS : 0));
    const next: DemoEnv[] = [];
    for (const env of population) {
      const p = rates.get(env.key) ?? 0;
      if (p > 0.1 && p < 0.85) next.push(env);
      else if (p >= 0.85) {
        const pushed = harder(family, env.config);
        if (pushed.config !== env.config) next.push({ key: newKey(), parentKey: env.key, ...pushed });
      }
    }
    while (next.length < size) {
      const parent = next.length ? next[Math.floor(rng.next() * next.length)] : undefined;
      if (parent && rng.next() < 0.6) {
        const { config: child, edits } = mutateConfig(rng, family.fields, parent.config, { edits: 1 });
        const direction = family.fields.find((f) => f.path === edits[0]?.path)?.direction;
        if (edits.length && family.validate(child).state === "valid") next.push({ key: newKey(), parentKey: parent.key, config: child, direction });
      } else {
        next.push({ key: newKey(), config: family.sample(rng, { hardness: { min: 0.2, max: 0.75 } }) });
      }
    }
    population = next;
    skill += 0.45;
  }
  return DEMO_SLUG;
}

/** A solved environment pushed one step harder along the first direction that stays valid. */
function harder(family: FamilyDefinition, config: FamilyConfig): Pick<DemoEnv, "config" | "direction"> {
  for (const path of ["size", "slip_probability", "num_agents", "obstacle_density"]) {
    const field = family.fields.find((f) => f.path === path);
    if (!field) continue;
    const candidate = { ...config, [path]: stepHarder(field, config[path], 1) };
    if (candidate[path] !== config[path] && family.validate(candidate).state === "valid") return { config: candidate, direction: field.direction };
  }
  return { config, direction: "diversify" };
}
