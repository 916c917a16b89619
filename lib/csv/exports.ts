/** CSV downloads of the rollouts list (its current filter, every page) and of a run comparison. */
import type { Db } from "@/lib/db/client";
import type { ProjectRow } from "@/lib/projects/service";
import { listRollouts, listRolloutsQuery } from "@/lib/rollouts/list";
import { labelsOfRollouts } from "@/lib/annotations/service";
import { parseOrThrow } from "@/lib/errors";
import type { RunComparison } from "@/lib/compare/service";
import { csvResponse, csvStream, type CsvValue } from "./index";

/** Rows per database page of a rollouts export. */
const EXPORT_PAGE = 1000;

const ROLLOUT_HEADER = [
  "id",
  "externalId",
  "trialName",
  "environmentKey",
  "generation",
  "policy",
  "reward",
  "success",
  "status",
  "failureCategory",
  "errorType",
  "turns",
  "inputTokens",
  "outputTokens",
  "testsPassed",
  "testsFailed",
  "labels",
  "startedAt",
  "finishedAt",
];

/** The rollouts list as CSV: the same filters as GET .../rollouts, every matching row, read in pages as the client takes them. */
export function rolloutsCsv(db: Db, project: ProjectRow, params: Record<string, string>): Response {
  const { cursor: _c, limit: _l, format: _f, ...filters } = params;
  // refuse a bad filter with a 400 before the download starts
  parseOrThrow(listRolloutsQuery, filters, "query", 400);
  async function* pages(): AsyncGenerator<CsvValue[][]> {
    let cursor: string | null = null;
    do {
      const page = await listRollouts(db, project, { ...filters, limit: String(EXPORT_PAGE), ...(cursor ? { cursor } : {}) });
      const labels = await labelsOfRollouts(
        db,
        page.items.map((r) => r.id),
      );
      yield page.items.map((r) => [
        r.id,
        r.externalId,
        r.trialName,
        r.environmentKey,
        r.generation,
        r.policy,
        r.reward,
        r.success,
        r.status,
        r.failureCategory,
        r.errorType,
        r.turns,
        r.inputTokens,
        r.outputTokens,
        r.testsPassed,
        r.testsFailed,
        labels.get(r.id) ?? [],
        r.startedAt,
        r.finishedAt,
      ]);
      cursor = page.nextCursor;
    } while (cursor);
  }
  return csvResponse(csvStream(ROLLOUT_HEADER, pages()), `rollouts-${project.slug}.csv`);
}

const COMPARE_HEADER = [
  "environment",
  "verdict",
  "pValue",
  "aN",
  "aSuccesses",
  "aMeanReward",
  "bN",
  "bSuccesses",
  "bMeanReward",
  "delta",
  "successDelta",
  "successDeltaLow",
  "successDeltaHigh",
  "passingRolloutId",
  "failingRolloutId",
];

/** A run comparison as CSV, one environment a row in the comparison's order (regressions, improvements, the rest). */
export function compareCsv(project: ProjectRow, c: RunComparison): Response {
  const rows: CsvValue[][] = c.environments.map((e) => [
    e.key,
    e.verdict,
    e.pValue,
    e.a.n,
    e.a.successes,
    e.a.meanReward,
    e.b.n,
    e.b.successes,
    e.b.meanReward,
    e.delta,
    e.successDelta,
    e.successDeltaInterval[0],
    e.successDeltaInterval[1],
    e.pair?.passing,
    e.pair?.failing,
  ]);
  async function* one() {
    yield rows;
  }
  const side = (s: { generation: number; policy: string }) => `g${s.generation}-${s.policy}`;
  return csvResponse(csvStream(COMPARE_HEADER, one()), `compare-${project.slug}-${side(c.a)}-vs-${side(c.b)}.csv`);
}
