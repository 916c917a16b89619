/**
 * Arena reports uploaded as `envforge arena --upload` sends them (POST /api/v1/arena/reports), on a real Postgres: a
 * real report (one quick cell, made here by the arena itself) is stored and read back with its goal checks; a crafted
 * one whose checks carry no numbers, or whose figures are text, is refused naming the field, and nothing is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBootstrapKey } from "@/lib/auth/keys";
import { runArenaMatrix, type ArenaReport } from "@/lib/arena";
import * as reportsRoute from "@/app/api/v1/arena/reports/route";
import * as runsRoute from "@/app/api/v1/arena/runs/route";
import { freshDatabase } from "./db";
import { call } from "./http";

const ADMIN = "test-bootstrap-token-arena-reports-01";
let db: Awaited<ReturnType<typeof freshDatabase>>;
let report: ArenaReport;

beforeAll(async () => {
  db = await freshDatabase();
  await ensureBootstrapKey(db.db, ADMIN);
  [report] = await runArenaMatrix({ seeds: 1, quick: true, families: ["search-agent"], learners: ["default"], trapShares: [0.15] });
}, 120_000);
afterAll(async () => {
  await db?.drop();
});

const upload = (body: unknown) => call(reportsRoute.POST as never, "POST", "/api/v1/arena/reports", { token: ADMIN, body });
const stored = async () =>
  (await call(runsRoute.GET as never, "GET", "/api/v1/arena/runs", { token: ADMIN })).json.runs as { report: ArenaReport }[];
/** The report with its first goal check changed (a deep copy: the real report stays as made). */
const withCheck = (change: Record<string, unknown>): ArenaReport => {
  const copy = structuredClone(report);
  copy.goal.checks[0] = { ...copy.goal.checks[0], ...change } as never;
  return copy;
};

describe("uploaded arena reports", () => {
  it("stores a real report and reads it back with every goal check, the oracle's verdict included", async () => {
    expect(report.goal.checks.length).toBeGreaterThan(0);
    expect(report.goal.checks[0]).toHaveProperty("oracleWon");
    const r = await upload(report);
    expect(r.status).toBe(201);
    const [run] = await stored();
    expect(run.report.goal.checks).toEqual(report.goal.checks);
  });

  it("refuses a check whose figures are not numbers, naming the field, and stores nothing", async () => {
    const before = (await stored()).length;
    for (const [change, field] of [
      [{ ratio: "1.2" }, "goal.checks.0.ratio"],
      [{ oracle: "a lot" }, "goal.checks.0.oracle"],
      [{ oracleWon: "no" }, "goal.checks.0.oracleWon"],
      [{ heuristic: null }, "goal.checks.0.heuristic"],
      [{ level: 65 }, "goal.checks.0.level"],
      [{ setting: "<img src=x>" }, "goal.checks.0.setting"],
    ] as const) {
      const r = await upload(withCheck(change));
      expect(r.status, JSON.stringify(change)).toBe(422);
      expect(r.json.error.details.map((d: { path: string }) => d.path)).toContain(field);
      expect(r.json.error.message).toContain(field);
    }
    // a matrix names the cell too
    const matrix = { version: 1, kind: "matrix", seeds: 1, quick: true, cells: [report, withCheck({ won: "yes" })], goal: { met: false } };
    const m = await upload(matrix);
    expect(m.status).toBe(422);
    expect(m.json.error.message).toContain("cells.1.goal.checks.0.won");
    expect((await stored()).length).toBe(before);
  });

  it("still takes a report made before goal checks were stored (no checks at all)", async () => {
    const older = structuredClone(report);
    const { checks: _dropped, ...goal } = older.goal;
    void _dropped;
    expect((await upload({ ...older, goal })).status).toBe(201);
  });
});
