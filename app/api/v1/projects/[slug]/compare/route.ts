import { apiRoute } from "@/lib/api/route";
import { compareQuery, compareRuns, type CompareQuery } from "@/lib/compare/service";

export const dynamic = "force-dynamic";

/** Two (generation, policy) runs of a project compared environment by environment. */
export const GET = apiRoute<{ slug: string }, undefined, CompareQuery>({ scope: "projects:read", project: "slug", query: compareQuery }, async ({ db, project, query }) => {
  return compareRuns(db, project, query);
});
