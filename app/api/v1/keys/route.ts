import { apiRoute } from "@/lib/api/route";
import { createKeySchema } from "@/lib/api/contracts";
import { createApiKey, listApiKeys } from "@/lib/auth/keys";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ scope: "keys:manage", project: "global" }, async ({ db }) => {
  return { keys: await listApiKeys(db) };
});

export const POST = apiRoute({ scope: "keys:manage", project: "global", body: createKeySchema }, async ({ db, principal, body }) => {
  const created = await createApiKey(db, body, principal);
  return Response.json(created, { status: 201 });
});
