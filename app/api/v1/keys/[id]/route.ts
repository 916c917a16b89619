import { apiRoute, intParam } from "@/lib/api/route";
import { requireScope } from "@/lib/auth/principal";
import { revokeApiKey } from "@/lib/auth/keys";

export const dynamic = "force-dynamic";

export const DELETE = apiRoute<{ id: string }>(async ({ db, principal, params }) => {
  requireScope(principal, "keys:manage");
  await revokeApiKey(db, intParam(params.id, "id"), principal);
  return new Response(null, { status: 204 });
});
