import { apiRoute, intParam } from "@/lib/api/route";
import { rolloutTimeline } from "@/lib/rollouts/timeline";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>({ scope: "projects:read", project: "entity" }, async ({ db, principal, params }) => {
  return rolloutTimeline(db, intParam(params.id, "id"), principal);
});
