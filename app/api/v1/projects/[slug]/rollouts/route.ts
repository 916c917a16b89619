import { apiRoute } from "@/lib/api/route";
import { searchParamsOf } from "@/lib/api/contracts";
import { postRollouts } from "@/lib/ingest/post-rollouts";
import { listRollouts } from "@/lib/rollouts/list";
import { rolloutsExport } from "@/lib/csv/exports";

export const dynamic = "force-dynamic";

export const POST = apiRoute<{ slug: string }>({ scope: "rollouts:write", project: "slug" }, async ({ req, db, principal, project }) => {
  return postRollouts(db, project, principal, req);
});

export const GET = apiRoute<{ slug: string }>({ scope: "projects:read", project: "slug" }, async ({ req, db, project }) => {
  const params = searchParamsOf(req);
  // format=csv|parquet: every rollout the filter matches, streamed page by page
  if (params.format === "csv" || params.format === "parquet") return rolloutsExport(db, project, params, params.format);
  return listRollouts(db, project, params);
});
