import { apiRoute, intParam } from "@/lib/api/route";
import { parseOrThrow } from "@/lib/errors";
import { cursorQuerySchema, searchParamsOf } from "@/lib/api/contracts";
import { getFamily } from "@/lib/family-store";
import { getGeneration } from "@/lib/generations/service";
import { generationEnvironmentsPage } from "@/lib/generations/overview";
import { environmentTable, wantsEnvironmentTable } from "@/lib/generations/environment-table";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ slug: string; index: string }>(
  { scope: "projects:read", project: "slug" },
  async ({ req, db, params, project }) => {
    const generation = await getGeneration(db, project, intParam(params.index, "index"));
    const search = new URL(req.url).searchParams;
    if (wantsEnvironmentTable(search)) {
      // filters or a sort by a stat: the whole generation is aggregated, then paged by (value, key)
      return environmentTable(db, project, await getFamily(db, project.familyId), generation, search);
    }
    const query = parseOrThrow(cursorQuerySchema, searchParamsOf(req), "query", 400);
    return generationEnvironmentsPage(db, project, generation, query.cursor, query.limit);
  },
);
