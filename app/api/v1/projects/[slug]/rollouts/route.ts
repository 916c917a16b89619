import { apiRoute } from "@/lib/api/route";
import { searchParamsOf } from "@/lib/api/contracts";
import { getProjectFor } from "@/lib/projects/service";
import { listRollouts, postRollouts } from "@/lib/ingest/rollouts-api";

export const dynamic = "force-dynamic";

export const POST = apiRoute<{ slug: string }>(async ({ req, db, principal, params }) => {
  const project = await getProjectFor(db, params.slug, principal);
  return postRollouts(db, project, principal, req);
});

export const GET = apiRoute<{ slug: string }>(async ({ req, db, principal, params }) => {
  const project = await getProjectFor(db, params.slug, principal);
  return listRollouts(db, project, searchParamsOf(req));
});
