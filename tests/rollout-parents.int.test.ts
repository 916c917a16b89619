/**
 * A rollout's generation, environment and policy (drizzle/0034_rollout_parents_checked.sql): checked once per
 * statement instead of by three foreign keys row by row. The check must hold what the keys held (a parent that does
 * not exist is refused, deleting a parent deletes its rollouts) and more: a parent of another project is refused too,
 * which no key checked. Each refusal names the column and leaves nothing of the statement behind.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "./db";

let db: Awaited<ReturnType<typeof freshDatabase>>;
interface Parents {
  project: number;
  generation: number;
  environment: number;
  policy: number;
}
let a: Parents;
let b: Parents;
let seq = 0;

async function one<T>(text: string, params: unknown[] = []): Promise<T> {
  return (await db.pool.query(text, params)).rows[0] as T;
}

async function parents(slug: string): Promise<Parents> {
  const { id: project } = await one<{ id: number }>(
    "insert into projects (slug, name, family_id) values ($1, $1, 'parents-probe') returning id",
    [slug],
  );
  const { id: generation } = await one<{ id: number }>("insert into generations (project_id, index) values ($1, 0) returning id", [
    project,
  ]);
  const { id: environment } = await one<{ id: string }>(
    "insert into environments (project_id, key, config, config_hash) values ($1, 'e', '{}', 'h') returning id",
    [project],
  );
  const { id: policy } = await one<{ id: number }>("insert into policies (project_id, name) values ($1, 'p') returning id", [project]);
  return { project, generation, environment: Number(environment), policy };
}

/** Inserts rollouts in one statement, one per row of parents. */
async function insert(rows: Parents[]) {
  const values = rows.map(
    (_, i) => `($${i * 5 + 1}::int, $${i * 5 + 2}::int, $${i * 5 + 3}::bigint, $${i * 5 + 4}::int, $${i * 5 + 5}, true)`,
  );
  const params = rows.flatMap((r) => [r.project, r.generation, r.environment, r.policy, `x-${++seq}`]);
  await db.pool.query(
    `insert into rollouts (project_id, generation_id, environment_id, policy_id, external_id, success) values ${values.join(", ")}`,
    params,
  );
}

const count = async (project: number) =>
  (await one<{ n: number }>("select count(*)::int as n from rollouts where project_id = $1", [project])).n;

beforeAll(async () => {
  db = await freshDatabase();
  await db.pool.query(
    "insert into families (id, version, json_schema, fields) values ('parents-probe', '1', '{}', '[]') on conflict do nothing",
  );
  a = await parents("parents-a");
  b = await parents("parents-b");
});
afterAll(async () => db.drop());

describe("a rollout's parents", () => {
  it("stores rollouts whose parents are all of their project", async () => {
    await insert([a, a, b]);
    expect(await count(a.project)).toBe(2);
    expect(await count(b.project)).toBe(1);
  });

  it.each([
    ["generation", "generation_id", (p: Parents) => ({ ...p, generation: b.generation })],
    ["environment", "environment_id", (p: Parents) => ({ ...p, environment: b.environment })],
    ["policy", "policy_id", (p: Parents) => ({ ...p, policy: b.policy })],
  ])("refuses a %s of another project, naming the column, and stores none of the statement", async (_kind, column, cross) => {
    const before = await count(a.project);
    const err = await insert([a, cross(a)]).catch((e: { code?: string; column?: string; message: string }) => e);
    expect(err).toMatchObject({ code: "23503", column });
    expect((err as Error).message).toMatch(new RegExp(`${column} \\d+ is not an? \\w+ of project ${a.project}`));
    expect(await count(a.project)).toBe(before);
  });

  it.each([
    ["generation_id", (p: Parents) => ({ ...p, generation: 987654 })],
    ["environment_id", (p: Parents) => ({ ...p, environment: 987654 })],
    ["policy_id", (p: Parents) => ({ ...p, policy: 987654 })],
  ])("refuses a %s that does not exist", async (column, missing) => {
    await expect(insert([missing(a)])).rejects.toMatchObject({ code: "23503", column });
  });

  it("refuses an update that moves a rollout to another project's generation", async () => {
    await expect(
      db.pool.query("update rollouts set generation_id = $1 where project_id = $2", [b.generation, a.project]),
    ).rejects.toMatchObject({ code: "23503", column: "generation_id" });
    expect((await one<{ n: number }>("select count(*)::int as n from rollouts where generation_id = $1", [a.generation])).n).toBe(2);
  });

  it("deletes a parent's rollouts with it, as the keys' cascade did, and only those", async () => {
    const c = await parents("parents-c");
    await insert([c, c, c]);
    await db.pool.query("delete from policies where id = $1", [c.policy]);
    expect(await count(c.project)).toBe(0);
    await insert([b]);
    await db.pool.query("delete from environments where id = $1", [b.environment]);
    expect(await count(b.project)).toBe(0);
    expect(await count(a.project)).toBe(2);
    await db.pool.query("delete from generations where id = $1", [a.generation]);
    expect(await count(a.project)).toBe(0);
  });

  it("deletes a project's rollouts with the project", async () => {
    const d = await parents("parents-d");
    await insert([d, d]);
    await db.pool.query("delete from projects where id = $1", [d.project]);
    expect(await count(d.project)).toBe(0);
  });
});
