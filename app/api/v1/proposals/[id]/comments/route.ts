import { apiRoute, readJsonBody } from "@/lib/api/route";
import { addComment } from "@/lib/review/decisions";

export const dynamic = "force-dynamic";

export const POST = apiRoute<{ id: string }>({ scope: "proposals:review", project: "entity" }, async ({ req, db, principal, params }) => {
  return Response.json(await addComment(db, params.id, await readJsonBody(req), principal), { status: 201 });
});
