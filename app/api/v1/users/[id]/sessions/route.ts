import { apiRoute, intParam } from "@/lib/api/route";
import { requireScope } from "@/lib/auth/principal";
import { endUserSessions } from "@/lib/auth/users";

export const dynamic = "force-dynamic";

/** DELETE /api/v1/users/{id}/sessions: sign the account out everywhere (it may sign in again). */
export const DELETE = apiRoute<{ id: string }>(async ({ db, principal, params }) => {
  requireScope(principal, "users:manage");
  return { sessionsEnded: await endUserSessions(db, intParam(params.id, "id"), principal.actor) };
});
