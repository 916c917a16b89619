import { apiRoute, intParam } from "@/lib/api/route";
import { parseOrThrow } from "@/lib/errors";
import { cursorQuerySchema, searchParamsOf } from "@/lib/api/contracts";
import { getFamily } from "@/lib/family-store";
import { getGeneration } from "@/lib/generations/service";
import { generationEnvironmentsPage } from "@/lib/generations/overview";
import { environmentTable, wantsEnvironmentTable } from "@/lib/generations/environment-table";
import { environmentsExport } from "@/lib/csv/exports";
import { BadRequest } from "@/lib/errors";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ slug: string; index: string }>(
  { scope: "projects:read", project: "slug" },
  async ({ req, db, params, project }) => {
    const generation = await getGeneration(db, project, intParam(params.index, "index"));
    const search = new URL(req.url).searchParams;
    const format = search.get("format");
    if (format === "csv" || format === "parquet") {
      // a download of the table with the same filters and order, every row, read in pages as the client takes them
      search.delete("format");
      search.delete("cursor");
      search.set("limit", "1000");
      const family = await getFamily(db, project.familyId);
      await environmentTable(db, project, family, generation, search); // a bad filter is a 400 before the download starts
      const readPage = (cursor: string | null) => {
        const page = new URLSearchParams(search);
        if (cursor) page.set("cursor", cursor);
        return environmentTable(db, project, family, generation, page);
      };
      return environmentsExport(readPage, `environments-${project.slug}-g${generation.index}`, format);
    }
    if (format !== null && format !== "json")
      throw new BadRequest("format is json, csv or parquet.", [{ path: "query.format", message: "unknown format" }]);
    if (wantsEnvironmentTable(search)) {
      // filters or a sort by a stat: the whole generation is aggregated, then paged by (value, key)
      return environmentTable(db, project, await getFamily(db, project.familyId), generation, search);
    }
    const query = parseOrThrow(cursorQuerySchema, searchParamsOf(req), "query", 400);
    return generationEnvironmentsPage(db, project, generation, query.cursor, query.limit);
  },
);
