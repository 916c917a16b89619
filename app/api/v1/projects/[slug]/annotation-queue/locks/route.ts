import { apiRoute } from "@/lib/api/route";
import { listLocks } from "@/lib/annotation-queue/locks";

export const dynamic = "force-dynamic";

/** Who is reviewing what in the annotation queue right now (live locks only). */
export const GET = apiRoute<{ slug: string }>({ scope: "projects:read", project: "slug" }, async ({ db, project }) => {
  return listLocks(db, project);
});
