import { apiRoute } from "@/lib/api/route";
import { compareQuery, compareRuns, type CompareQuery } from "@/lib/compare/service";
import { compareExport } from "@/lib/csv/exports";

export const dynamic = "force-dynamic";

/** Two (generation, policy) runs of a project compared environment by environment (`format=csv` or `format=parquet` for a download). */
export const GET = apiRoute<{ slug: string }, undefined, CompareQuery>(
  { scope: "projects:read", project: "slug", query: compareQuery },
  async ({ db, project, query }) => {
    const comparison = await compareRuns(db, project, query);
    return query.format === "csv" || query.format === "parquet" ? compareExport(project, comparison, query.format) : comparison;
  },
);
