import { apiRoute, intParam } from "@/lib/api/route";
import { searchTurns } from "@/lib/rollouts/turns";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>({ scope: "projects:read", project: "entity" }, async ({ db, principal, params, req }) => {
  return searchTurns(db, intParam(params.id, "id"), Object.fromEntries(new URL(req.url).searchParams), principal);
});
