import { apiRoute, intParam } from "@/lib/api/route";
import { parseOrThrow } from "@/lib/api/errors";
import { cursorQuerySchema, searchParamsOf } from "@/lib/api/contracts";
import { getProjectFor } from "@/lib/projects/service";
import { getGeneration } from "@/lib/generations/service";
import { generationEnvironmentsPage } from "@/lib/generations/overview";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ slug: string; index: string }>(async ({ req, db, principal, params }) => {
  const project = await getProjectFor(db, params.slug, principal);
  const generation = await getGeneration(db, project, intParam(params.index, "index"));
  const query = parseOrThrow(cursorQuerySchema, searchParamsOf(req), "query", 400);
  return generationEnvironmentsPage(db, project, generation, query.cursor, query.limit);
});
