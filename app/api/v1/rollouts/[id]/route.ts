import { apiRoute, intParam } from "@/lib/api/route";
import { getRollout } from "@/lib/rollouts/read";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>({ scope: "projects:read", project: "entity" }, async ({ db, principal, params }) => {
  return getRollout(db, intParam(params.id, "id"), principal);
});
