/**
 * The demo project: a curriculum on `frozenlake-mapf` made by our own simulators. Seeding creates
 * the project, its first generation (sampled and validated by the family), an ingest key and the
 * `simulated-trainer` dispatch target; the demo loop (lib/demo/loop.ts) then runs the cycles.
 */
import { and, eq } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { dispatchTargets, environments, generations, projects } from "@/lib/db/schema";
import { FIRST_GENERATION_HARDNESS } from "@/lib/families/hardness";
import { getBuiltinFamily } from "@/lib/families/registry";
import { createRng } from "@/lib/families/rng";
import { createProject } from "@/lib/projects/service";
import { createGeneration } from "@/lib/generations/service";
import { createApiKey } from "@/lib/auth/keys";
import { encryptSecret } from "@/lib/dispatch/secrets";
import { DEMO_TARGET } from "./loop";
import { demoTrainerConfig } from "./trainer-target";
import { loadSettings } from "@/lib/config/env";

export const DEMO_SLUG = "demo-frozenlake";
const ACTOR = { actor: "system:demo" };

/**
 * Seed the demo project on first start; returns the project when created, null when it exists
 * (then only its trainer target's command is brought up to date, see lib/demo/trainer-target.ts).
 */
export async function seedDemo(
  db: Db,
  opts: { root: string; workDir: string; populationSize?: number; seed?: number; log?: (line: string) => void },
) {
  const [existing] = await db.select({ id: projects.id }).from(projects).where(eq(projects.slug, DEMO_SLUG));
  if (existing) {
    const [target] = await db
      .select({ id: dispatchTargets.id, adapter: dispatchTargets.adapter })
      .from(dispatchTargets)
      .where(and(eq(dispatchTargets.projectId, existing.id), eq(dispatchTargets.name, DEMO_TARGET)));
    if (target?.adapter === "local") {
      const config = await demoTrainerConfig(opts.root, opts.workDir, { log: opts.log });
      await db.update(dispatchTargets).set({ config }).where(eq(dispatchTargets.id, target.id));
    }
    return null;
  }
  const secretKey = loadSettings().ENVFORGE_SECRET_KEY;
  if (!secretKey) throw new Error("The demo needs ENVFORGE_SECRET_KEY to store its trainer's key encrypted.");
  const family = getBuiltinFamily("frozenlake-mapf")!;
  const rng = createRng(opts.seed ?? 20261130);
  const size = opts.populationSize ?? 24;
  const project = await createProject(db, { slug: DEMO_SLUG, name: "Demo: FrozenLake MAPF curriculum", family: family.id }, ACTOR, {
    demo: true,
  });

  // a first population in the easier half of the config space, every map solvable
  const configs = Array.from({ length: size }, () => family.sample(rng, { hardness: FIRST_GENERATION_HARDNESS }));
  await createGeneration(
    db,
    project,
    family,
    {
      index: 0,
      status: "approved",
      trainingSteps: 200,
      environments: configs.map((config, i) => ({ key: `fl-${String(i + 1).padStart(4, "0")}`, config })),
    },
    ACTOR.actor,
    "seed",
    true,
  );
  for (const [i, config] of configs.entries()) {
    const v = family.validate(config);
    await db
      .update(environments)
      .set({ validationState: v.state, pMax: v.pMax ?? null })
      .where(and(eq(environments.projectId, project.id), eq(environments.key, `fl-${String(i + 1).padStart(4, "0")}`)));
  }
  // the simulated trainer posts its rollouts back with a key that may only ingest into this project
  const key = await createApiKey(db, { name: "demo-simulated-trainer", role: "ingest", project: DEMO_SLUG }, ACTOR);
  await db.insert(dispatchTargets).values({
    projectId: project.id,
    name: DEMO_TARGET,
    kind: "trainer",
    adapter: "local",
    config: await demoTrainerConfig(opts.root, opts.workDir, { log: opts.log }),
    secretCiphertext: encryptSecret(key.key, secretKey),
    maxAttempts: 3,
    createdBy: ACTOR.actor,
  });
  return project;
}

/** Whether the demo project's first generation still waits for its first cycle. */
export async function demoNeedsFirstCycles(db: Db, projectId: number) {
  const rows = await db.select({ index: generations.index }).from(generations).where(eq(generations.projectId, projectId));
  return rows.length <= 1;
}
