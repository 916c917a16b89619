import { apiRoute, intParam } from "@/lib/api/route";
import { turnPage } from "@/lib/rollouts/turns";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>({ scope: "projects:read", project: "entity" }, async ({ db, principal, params, req }) => {
  return turnPage(db, intParam(params.id, "id"), Object.fromEntries(new URL(req.url).searchParams), principal);
});
