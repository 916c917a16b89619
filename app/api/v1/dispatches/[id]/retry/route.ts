import { apiRoute } from "@/lib/api/route";
import { retryDispatch } from "@/lib/dispatch/manage";

export const dynamic = "force-dynamic";

/** Queue a failed dispatch again with fresh attempts (reviewer or admin); 409 unless it failed. */
export const POST = apiRoute<{ id: string }>({ scope: "dispatch:create", project: "entity" }, async ({ db, principal, params }) => {
  return retryDispatch(db, params.id, principal);
});
