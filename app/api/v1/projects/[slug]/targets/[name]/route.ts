import { apiRoute } from "@/lib/api/route";
import { deleteTarget } from "@/lib/dispatch/service";

export const dynamic = "force-dynamic";

export const DELETE = apiRoute<{ slug: string; name: string }>({ scope: "targets:manage", project: "slug" }, async ({ db, principal, params, project }) => {
  await deleteTarget(db, project, params.name, principal);
  return new Response(null, { status: 204 });
});
