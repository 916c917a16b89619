/** CSV and Parquet downloads of the rollouts list (its current filter, every page), a generation's environment table and a run comparison. */
import type { Db } from "@/lib/db/client";
import type { ProjectRow } from "@/lib/projects/service";
import { listRollouts, listRolloutsQuery } from "@/lib/rollouts/list";
import { annotationsOfRollouts } from "@/lib/annotations/service";
import { parseOrThrow } from "@/lib/errors";
import type { RunComparison } from "@/lib/compare/service";
import type { EnvironmentTableRow } from "@/lib/generations/environment-table";
import { parquetResponse, parquetStream, type ParquetColumn } from "@/lib/parquet";
import { csvResponse, csvStream, type CsvValue } from "./index";

/** The download formats every export offers. */
export type ExportFormat = "csv" | "parquet";

/** A streamed download of `pages` in `format`, named `<name>.csv` or `<name>.parquet`. */
function exportResponse(
  format: ExportFormat,
  columns: readonly ParquetColumn[],
  pages: AsyncIterable<CsvValue[][]>,
  name: string,
): Response {
  if (format === "parquet") return parquetResponse(parquetStream(columns, pages), `${name}.parquet`);
  return csvResponse(
    csvStream(
      columns.map((c) => c.name),
      pages,
    ),
    `${name}.csv`,
  );
}

const column =
  (type: ParquetColumn["type"]) =>
  (name: string): ParquetColumn => ({ name, type });
const text = column("STRING");
const int = column("INT64");
const real = column("DOUBLE");
const bool = column("BOOLEAN");
const time = column("TIMESTAMP");

/** Rows per database page of a rollouts export. */
const EXPORT_PAGE = 1000;

const ROLLOUT_COLUMNS: ParquetColumn[] = [
  int("id"),
  text("externalId"),
  text("trialName"),
  text("environmentKey"),
  int("generation"),
  text("policy"),
  real("reward"),
  bool("success"),
  text("status"),
  text("failureCategory"),
  text("errorType"),
  int("turns"),
  int("inputTokens"),
  int("outputTokens"),
  int("testsPassed"),
  int("testsFailed"),
  real("durationSeconds"),
  text("labels"),
  real("score"),
  text("notes"),
  time("startedAt"),
  time("finishedAt"),
];
/**
 * The rollouts list as CSV or Parquet: the same filters as GET .../rollouts, every matching row, read in pages as the client
 * takes them; with each rollout's annotation labels, mean score and notes.
 */
export function rolloutsExport(db: Db, project: ProjectRow, params: Record<string, string>, format: ExportFormat): Response {
  const { cursor: _c, limit: _l, format: _f, ...filters } = params;
  // refuse a bad filter with a 400 before the download starts
  parseOrThrow(listRolloutsQuery, filters, "query", 400);
  async function* pages(): AsyncGenerator<CsvValue[][]> {
    let cursor: string | null = null;
    do {
      const page = await listRollouts(db, project, { ...filters, limit: String(EXPORT_PAGE), ...(cursor ? { cursor } : {}) });
      const annotated = await annotationsOfRollouts(
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
        r.durationSeconds,
        annotated.get(r.id)?.labels ?? [],
        annotated.get(r.id)?.score,
        annotated.get(r.id)?.notes ?? [],
        r.startedAt,
        r.finishedAt,
      ]);
      cursor = page.nextCursor;
    } while (cursor);
  }
  return exportResponse(format, ROLLOUT_COLUMNS, pages(), `rollouts-${project.slug}`);
}

const COMPARE_COLUMNS: ParquetColumn[] = [
  text("environment"),
  text("verdict"),
  real("pValue"),
  real("qValue"),
  int("aN"),
  int("aSuccesses"),
  real("aMeanReward"),
  int("bN"),
  int("bSuccesses"),
  real("bMeanReward"),
  real("delta"),
  real("successDelta"),
  real("successDeltaLow"),
  real("successDeltaHigh"),
  int("passingRolloutId"),
  int("failingRolloutId"),
];
/** A run comparison as CSV or Parquet, one environment a row in the comparison's order (regressions, improvements, the rest). */
export function compareExport(project: ProjectRow, c: RunComparison, format: ExportFormat): Response {
  const rows: CsvValue[][] = c.environments.map((e) => [
    e.key,
    e.verdict,
    e.pValue,
    e.qValue,
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
  return exportResponse(format, COMPARE_COLUMNS, one(), `compare-${project.slug}-${side(c.a)}-vs-${side(c.b)}`);
}

const ENVIRONMENT_COLUMNS: ParquetColumn[] = [
  text("key"),
  text("parentKey"),
  text("op"),
  text("direction"),
  real("weight"),
  text("validation"),
  real("pMax"),
  text("tier"),
  text("categories"),
  int("rollouts"),
  int("successes"),
  real("successRate"),
  real("learnability"),
  int("testsPassed"),
  int("testsRun"),
  text("config"),
];

/**
 * A generation's environment table as CSV or Parquet: the same filters and order as the table, every
 * row, `readPage(cursor)` called for the next page only when the client has taken the previous one.
 */
export function environmentsExport(
  readPage: (cursor: string | null) => Promise<{ items: EnvironmentTableRow[]; nextCursor: string | null }>,
  name: string,
  format: ExportFormat,
): Response {
  async function* pages(): AsyncGenerator<CsvValue[][]> {
    let cursor: string | null = null;
    do {
      const page = await readPage(cursor);
      yield page.items.map((e) => [
        e.key,
        e.parentKey,
        e.op,
        e.direction,
        e.weight,
        e.validation.state,
        e.validation.pMax,
        e.tier,
        e.categories,
        e.stats.rollouts,
        e.stats.successes,
        e.stats.successRate,
        e.stats.learnability,
        e.stats.testsPassed,
        e.stats.testsRun,
        JSON.stringify(e.config),
      ]);
      cursor = page.nextCursor;
    } while (cursor);
  }
  return exportResponse(format, ENVIRONMENT_COLUMNS, pages(), name);
}
