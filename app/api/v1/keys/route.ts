import { apiRoute, readJsonBody } from "@/lib/api/route";
import { parseOrThrow } from "@/lib/api/errors";
import { createKeySchema } from "@/lib/api/contracts";
import { requireScope } from "@/lib/auth/principal";
import { createApiKey, listApiKeys } from "@/lib/auth/keys";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async ({ db, principal }) => {
  requireScope(principal, "keys:manage");
  return { keys: await listApiKeys(db) };
});

export const POST = apiRoute(async ({ req, db, principal }) => {
  requireScope(principal, "keys:manage");
  const input = parseOrThrow(createKeySchema, await readJsonBody(req));
  const created = await createApiKey(db, input, principal);
  return Response.json(created, { status: 201 });
});
