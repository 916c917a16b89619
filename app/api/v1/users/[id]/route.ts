import type { z } from "zod";
import { apiRoute, intParam } from "@/lib/api/route";
import { updateUser, updateUserSchema } from "@/lib/auth/users";

export const dynamic = "force-dynamic";

/**
 * PATCH /api/v1/users/{id} {"role"?, "password"?, "disabled"?}: a new role or password ends the
 * account's sessions; disabling ends them too.
 */
export const PATCH = apiRoute<{ id: string }, z.infer<typeof updateUserSchema>>(
  { scope: "users:manage", project: "global", body: updateUserSchema },
  async ({ db, principal, params, body }) => updateUser(db, intParam(params.id, "id"), body, principal),
);
