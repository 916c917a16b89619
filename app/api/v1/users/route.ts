import { apiRoute } from "@/lib/api/route";
import { createUser, createUserSchema, listUsers } from "@/lib/auth/users";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ scope: "users:manage", project: "global" }, async ({ db }) => {
  return { users: await listUsers(db) };
});

export const POST = apiRoute({ scope: "users:manage", project: "global", body: createUserSchema }, async ({ db, principal, body }) => {
  const id = await createUser(db, body, principal.actor);
  return Response.json({ id, email: body.email.toLowerCase(), name: body.name, role: body.role }, { status: 201 });
});
