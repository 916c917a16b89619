import { apiRoute, readJsonBody } from "@/lib/api/route";
import { parseOrThrow } from "@/lib/api/errors";
import { requireScope } from "@/lib/auth/principal";
import { createUser, createUserSchema, listUsers } from "@/lib/auth/users";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async ({ db, principal }) => {
  requireScope(principal, "users:manage");
  return { users: await listUsers(db) };
});

export const POST = apiRoute(async ({ req, db, principal }) => {
  requireScope(principal, "users:manage");
  const input = parseOrThrow(createUserSchema, await readJsonBody(req));
  const id = await createUser(db, input, principal.actor);
  return Response.json({ id, email: input.email.toLowerCase(), name: input.name, role: input.role }, { status: 201 });
});
