import { apiRoute, intParam } from "@/lib/api/route";
import { setUserDisabled, updateUserSchema } from "@/lib/auth/users";

export const dynamic = "force-dynamic";

/** PATCH /api/v1/users/{id} {"disabled": true|false}: disabling ends the account's sessions at once. */
export const PATCH = apiRoute<{ id: string }, { disabled: boolean }>(
  { scope: "users:manage", project: "global", body: updateUserSchema },
  async ({ db, principal, params, body }) => setUserDisabled(db, intParam(params.id, "id"), body.disabled, principal),
);
