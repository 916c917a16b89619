/**
 * The engineer summary's turns and output tokens (median, p90) equal Postgres's percentile_cont over the generation's
 * rollouts, bit for bit: for the whole generation and per policy, with ties, rollouts without the figure, a policy
 * with one rollout, and a generation where no rollout has turns.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { freshDatabase } from "./db";
import { createProject, type ProjectRow } from "@/lib/projects/service";
import { getFamily } from "@/lib/family-store";
import { getGeneration } from "@/lib/generations/service";
import { ingestRollouts } from "@/lib/ingest/store";
import { buildEngineerContext } from "@/lib/engineer/summary";
import type { FamilyDefinition } from "@/lib/families/types";
import type { RolloutInput } from "@/lib/ingest/normalized";
import { lake } from "./configs";

let db: Awaited<ReturnType<typeof freshDatabase>>;
let project: ProjectRow;
let family: FamilyDefinition;

/** Rollout i of generation 0: turns with ties and gaps, some without turns or tokens; policy "solo" has one rollout. */
function rollout(i: number): RolloutInput {
  return {
    externalId: `r${i}`,
    environmentKey: `e${i % 7}`,
    environmentConfig: lake(i % 7),
    generation: 0,
    policy: i === 0 ? "solo" : i % 3 ? "pol-a" : "pol-b",
    reward: i % 2,
    ...(i % 5 === 4 ? {} : { turns: (i * 7) % 53 }),
    ...(i % 4 === 1 ? {} : { outputTokens: 100 + ((i * 37) % 191) }),
  };
}

beforeAll(async () => {
  db = await freshDatabase();
  project = await createProject(db.db, { slug: "dist", name: "dist", family: "frozenlake-mapf" }, { actor: "test" });
  family = await getFamily(db.db, "frozenlake-mapf");
  const lines = Array.from({ length: 203 }, (_, i) => ({ line: i + 1, value: rollout(i) }));
  // generation 1: tokens only, no turns at all
  lines.push(
    ...[0, 1, 2].map((i) => ({
      line: 204 + i,
      value: {
        externalId: `s${i}`,
        environmentKey: "e0",
        environmentConfig: lake(0),
        generation: 1,
        policy: "pol-a",
        outputTokens: 10 * i,
      },
    })),
  );
  const result = await ingestRollouts(db.db, project, family, lines, { createEnvironments: true });
  expect(result.rejected).toEqual([]);
});

afterAll(async () => {
  await db?.drop();
});

/** percentile_cont over the rows, as the summary read it before it counted values. */
async function percentiles(generationId: number, policy?: string) {
  const policyFilter = policy
    ? sql`and policy_id = (select id from policies where name = ${policy} and project_id = ${project.id})`
    : sql``;
  const [r] = (
    await db.db.execute<{ a: number | null; b: number | null; c: number | null; d: number | null }>(sql`
      select percentile_cont(0.5) within group (order by turns) as a, percentile_cont(0.9) within group (order by turns) as b,
             percentile_cont(0.5) within group (order by output_tokens) as c, percentile_cont(0.9) within group (order by output_tokens) as d
      from rollouts where generation_id = ${generationId} ${policyFilter}`)
  ).rows;
  return { turns: { median: r.a, p90: r.b }, outputTokens: { median: r.c, p90: r.d } };
}

describe("the summary's turns and tokens", () => {
  it("equal percentile_cont over the rollouts, for the generation and each policy", async () => {
    const g = await getGeneration(db.db, project, 0);
    for (const policy of [undefined, "pol-a", "pol-b", "solo"]) {
      const { summary } = await buildEngineerContext(db.db, project, family, g, policy);
      const expected = await percentiles(g.id, policy);
      expect({ turns: summary.behaviour.turns, outputTokens: summary.behaviour.outputTokens }, policy ?? "all").toStrictEqual(expected);
    }
    // interpolation between two different neighbours is exercised, not only whole positions
    const all = await percentiles(g.id);
    expect(all.turns.p90).toBe(47.80000000000001);
    expect(all.outputTokens.p90).toBe(270.8);
  });

  it("are null where no rollout has the figure", async () => {
    const g = await getGeneration(db.db, project, 1);
    const { summary } = await buildEngineerContext(db.db, project, family, g);
    expect(summary.behaviour.turns).toStrictEqual({ median: null, p90: null });
    expect(summary.behaviour.outputTokens).toStrictEqual(await percentiles(g.id).then((p) => p.outputTokens));
    expect(summary.behaviour.outputTokens.median).toBe(10);
  });
});
