import { apiRoute, intParam, readJsonBody } from "@/lib/api/route";
import { parseOrThrow } from "@/lib/api/errors";
import { requireScope } from "@/lib/auth/principal";
import { setUserDisabled, updateUserSchema } from "@/lib/auth/users";

export const dynamic = "force-dynamic";

/** PATCH /api/v1/users/{id} {"disabled": true|false}: disabling ends the account's sessions at once. */
export const PATCH = apiRoute<{ id: string }>(async ({ req, db, principal, params }) => {
  requireScope(principal, "users:manage");
  const id = intParam(params.id, "id");
  const input = parseOrThrow(updateUserSchema, await readJsonBody(req));
  return setUserDisabled(db, id, input.disabled, principal);
});
