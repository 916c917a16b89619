/**
 * An environment's attempts, its newest pass and fail, and its results' pass@k points, on a real Postgres, against
 * the same figures computed here from every rollout: the reads walk rollouts_environment_idx (environment_id, id)
 * INCLUDE (policy_id, success) per policy and per outcome (migration 0032) instead of sorting all of an environment's
 * rollouts (2.4 s for one with 585,598 of 10,000,000: issue 19), and must give exactly what the sort gave.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBuiltinFamily } from "@/lib/families/registry";
import { createRng } from "@/lib/families/rng";
import { getProjectFor } from "@/lib/projects/service";
import { environmentAttempts, environmentDetail, newestAttemptWithOutcome } from "@/lib/generations/environment-detail";
import { passAtKCurve } from "@/lib/analytics/metrics";
import type { EnvForgeClient } from "@/cli/client";
import { startApi, stopApi, createProjectWith, type TestDb, type TestServer } from "./api-harness";

const TOKEN = "test-bootstrap-token-attempts-0123";
let db: TestDb;
let server: TestServer;
let admin: EnvForgeClient;

const family = getBuiltinFamily("frozenlake-mapf")!;
const configs = Array.from({ length: 3 }, (_, i) => family.sample(createRng(400 + i)));
// three policies: "alpha" has only the first (oldest) lines, "zeta" only rollouts of e1, "mid" the rest
type Line = { externalId: string; environmentKey: string; policy: string; reward: number };
const lines: Line[] = [];

beforeAll(async () => {
  ({ db, server, admin } = await startApi(TOKEN));
  await createProjectWith(admin, { slug: "att" }, { environments: configs.map((config, i) => ({ key: `e${i}`, config })) });
  const rng = createRng(7);
  for (let i = 0; i < 420; i++) {
    const environmentKey = i < 150 ? `e${i % 2}` : i % 7 === 0 ? "e1" : "e0";
    const policy = i < 20 ? "alpha" : environmentKey === "e1" && i % 3 === 0 ? "zeta" : "mid";
    if (policy === "zeta" && environmentKey !== "e1") continue;
    lines.push({ externalId: `r${i}`, environmentKey, policy, reward: rng.next() < 0.35 ? 1 : 0 });
  }
  // e2 only ever passes
  for (let i = 0; i < 5; i++) lines.push({ externalId: `s${i}`, environmentKey: "e2", policy: "mid", reward: 1 });
  // in several requests, so ids follow the lines' order
  for (let at = 0; at < lines.length; at += 100)
    await admin.request("POST", "/api/v1/projects/att/rollouts", {
      raw: lines
        .slice(at, at + 100)
        .map((l) => JSON.stringify(l))
        .join("\n"),
      contentType: "application/x-ndjson",
    });
});
afterAll(async () => {
  await stopApi({ server, db });
});

/** Every rollout of the environment with its id, from the explorer's list (ids are the store's). */
async function all(key: string) {
  const out: { id: number; policy: string; success: boolean; externalId: string }[] = [];
  let cursor: string | null = null;
  do {
    const page: { items: { id: number; policy: string; success: boolean; externalId: string }[]; nextCursor: string | null } =
      await admin.request("GET", `/api/v1/projects/att/rollouts?environmentKey=${key}&limit=100${cursor ? `&cursor=${cursor}` : ""}`);
    out.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

describe("an environment's attempts and newest outcomes", () => {
  it("the explorer's environment filter lists exactly its rollouts, newest first", async () => {
    for (const key of ["e0", "e1", "e2"]) {
      const listed = await all(key);
      const expected = lines.filter((l) => l.environmentKey === key).map((l) => l.externalId);
      expect(listed.map((r) => r.externalId)).toEqual([...expected].reverse());
      expect(listed.map((r) => r.id)).toEqual([...listed.map((r) => r.id)].sort((a, b) => b - a));
    }
  });

  it("attempts are by policy name, newest first, cut at the limit across policies", async () => {
    const project = await getProjectFor(db.db, "att", null);
    for (const key of ["e0", "e1"]) {
      const rows = await all(key);
      const expected = [...rows].sort((a, b) => (a.policy === b.policy ? b.id - a.id : a.policy < b.policy ? -1 : 1));
      for (const limit of [200, 25, 3]) {
        const got = await environmentAttempts(db.db, project, key, limit);
        expect(got.map((a) => [a.policy, a.id])).toEqual(expected.slice(0, limit).map((r) => [r.policy, r.id]));
      }
    }
    const e1 = await environmentAttempts(db.db, project, "e1", 200);
    expect(new Set(e1.map((a) => a.policy))).toEqual(new Set(["alpha", "mid", "zeta"]));
    expect(await environmentAttempts(db.db, project, "nope", 200)).toEqual([]);
  });

  it("the newest pass and the newest fail, and none of an outcome an environment never had", async () => {
    const project = await getProjectFor(db.db, "att", null);
    for (const key of ["e0", "e1", "e2"]) {
      const rows = await all(key);
      const newest = (success: boolean) => rows.find((r) => r.success === success)?.id ?? null;
      expect(await newestAttemptWithOutcome(db.db, project, key, true)).toBe(newest(true));
      expect(await newestAttemptWithOutcome(db.db, project, key, false)).toBe(newest(false));
      const detail = await environmentDetail(db.db, project, key);
      expect(detail.compareDefault).toEqual({ passing: newest(true), failing: newest(false) });
    }
    expect((await environmentDetail(db.db, project, "e2")).compareDefault.failing).toBeNull();
  });

  it("each result's pass@k holds every k to 100, then points about 5% apart, the round ks and the largest k, as the full curve has them", async () => {
    const project = await getProjectFor(db.db, "att", null);
    const detail = await environmentDetail(db.db, project, "e0");
    const mid = detail.results.find((r) => r.policy === "mid")!;
    expect(mid.rollouts).toBeGreaterThan(200);
    const full = passAtKCurve([{ n: mid.rollouts, s: mid.successes, rewardSum: 0 } as never]);
    const ks = Object.keys(mid.passAtK).map(Number);
    expect(ks.slice(0, 100)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(ks[ks.length - 1]).toBe(mid.rollouts);
    expect(ks.length).toBeLessThan(mid.rollouts);
    // past 100, about 5% apart (and 200, which the page prints)
    expect(ks).toContain(200);
    const chart = ks.filter((k) => k !== 200);
    for (let i = 101; i < chart.length - 1; i++) expect(chart[i]).toBeGreaterThanOrEqual(Math.ceil(chart[i - 1] * 1.05));
    for (const k of ks) expect(mid.passAtK[String(k)]).toBe(full[String(k)]);
  });
});
