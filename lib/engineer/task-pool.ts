/**
 * The pool of imported tasks a terminal-task project schedules from: real tasks (imported folders
 * with files, or tasks pinned to a git commit), not evolved ones, outside the base generation,
 * with what the policy did on them so far.
 */
import { sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import type { PopulationMember } from "./types";

/** Imported tasks of the project that are not in the population (keys), with their rollouts up to generation `upTo`. */
export async function loadTaskPool(db: Db, projectId: number, populationKeys: string[], upTo: number): Promise<PopulationMember[]> {
  const rows = await db.execute<{
    key: string;
    config: Record<string, unknown>;
    config_hash: string;
    validation_state: string;
    p_max: number | null;
    n: number;
    s: number;
    generations: number;
  }>(sql`
    select e.key, e.config, e.config_hash, e.validation_state, e.p_max,
      count(r.id)::int as n, count(r.id) filter (where r.success)::int as s,
      (select count(*)::int from generation_environments ge join generations g on g.id = ge.generation_id
        where ge.environment_id = e.id and g.index <= ${upTo}) as generations
    from environments e
    left join rollouts r on r.environment_id = e.id
      and (r.generation_id is null or r.generation_id in (select id from generations where project_id = ${projectId} and index <= ${upTo}))
    where e.project_id = ${projectId} and e.parent_id is null
      and e.key not in (select jsonb_array_elements_text(${JSON.stringify(populationKeys)}::jsonb))
      and (exists (select 1 from environment_files f where f.environment_id = e.id) or e.config ? 'git_commit')
    group by e.id order by e.key`);
  return rows.rows.map((r) => ({
    key: r.key,
    config: r.config,
    configHash: r.config_hash,
    parentKey: null,
    op: "import",
    direction: null,
    validation: { state: r.validation_state, pMax: r.p_max === null ? null : Number(r.p_max) },
    n: r.n,
    s: r.s,
    age: r.generations,
    history: [],
    clusterIds: [],
  }));
}
