import { apiRoute, readJsonBody } from "@/lib/api/route";
import { getFamily } from "@/lib/family-store";
import { checkEditedConfig } from "@/lib/review/decisions";

export const dynamic = "force-dynamic";

/** Validate a config against the project's family (the review page's editor checks as you type). */
export const POST = apiRoute<{ slug: string }>({ scope: "proposals:review", project: "slug" }, async ({ req, db, project }) => {
  const family = await getFamily(db, project.familyId);
  const body = (await readJsonBody(req)) as { config?: unknown };
  const { config, details } = checkEditedConfig(family, body?.config, "config");
  return { valid: config !== null, errors: details };
});
