import { apiRoute } from "@/lib/api/route";
import { getProjectFor } from "@/lib/projects/service";
import { deleteTarget } from "@/lib/dispatch/service";

export const dynamic = "force-dynamic";

export const DELETE = apiRoute<{ slug: string; name: string }>(async ({ db, principal, params }) => {
  await deleteTarget(db, await getProjectFor(db, params.slug, principal), params.name, principal);
  return new Response(null, { status: 204 });
});
