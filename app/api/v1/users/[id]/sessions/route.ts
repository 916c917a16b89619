import { apiRoute, intParam } from "@/lib/api/route";
import { endUserSessions } from "@/lib/auth/users";

export const dynamic = "force-dynamic";

/** DELETE /api/v1/users/{id}/sessions: sign the account out everywhere (it may sign in again). */
export const DELETE = apiRoute<{ id: string }>({ scope: "users:manage", project: "global" }, async ({ db, principal, params }) => {
  return { sessionsEnded: await endUserSessions(db, intParam(params.id, "id"), principal.actor) };
});
