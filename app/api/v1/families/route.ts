import { apiRoute, readJsonBody } from "@/lib/api/route";
import { requireScope } from "@/lib/auth/principal";
import { familyView, listFamilies, registerFamily } from "@/lib/projects/families";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async ({ db, principal }) => {
  requireScope(principal, "projects:read");
  return { families: (await listFamilies(db)).map(familyView) };
});

export const POST = apiRoute(async ({ req, db, principal }) => {
  requireScope(principal, "families:write");
  const family = await registerFamily(db, await readJsonBody(req), principal);
  return Response.json(familyView(family), { status: 201 });
});
