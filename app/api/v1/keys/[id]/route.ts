import { apiRoute, intParam } from "@/lib/api/route";
import { revokeApiKey } from "@/lib/auth/keys";

export const dynamic = "force-dynamic";

export const DELETE = apiRoute<{ id: string }>({ scope: "keys:manage", project: "global" }, async ({ db, principal, params }) => {
  await revokeApiKey(db, intParam(params.id, "id"), principal);
  return new Response(null, { status: 204 });
});
