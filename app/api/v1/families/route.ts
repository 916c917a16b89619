import { apiRoute, readJsonBody } from "@/lib/api/route";
import { familyView, listFamilies, registerFamily } from "@/lib/family-store";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ scope: "projects:read", project: "global" }, async ({ db }) => {
  return { families: (await listFamilies(db)).map(familyView) };
});

export const POST = apiRoute({ scope: "families:write", project: "global" }, async ({ req, db, principal }) => {
  const family = await registerFamily(db, await readJsonBody(req), principal);
  return Response.json(familyView(family), { status: 201 });
});
