/** zod contracts of the public API shared by route handlers, the CLI and tests. */
import { z } from "zod";
import { ROLES } from "@/lib/auth/roles";

export const createKeySchema = z.strictObject({
  name: z.string().trim().min(1, "is required").max(100),
  role: z.enum(ROLES, { message: `must be one of ${ROLES.join(", ")}` }),
  project: z.string().min(1).optional(),
});

export const cursorQuerySchema = z.object({
  cursor: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

/** Parse URL search params into a plain object for zod. */
export function searchParamsOf(req: Request): Record<string, string> {
  return Object.fromEntries(new URL(req.url).searchParams.entries());
}
