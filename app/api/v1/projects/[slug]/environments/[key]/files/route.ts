import { apiRoute } from "@/lib/api/route";
import { listTaskFiles } from "@/lib/tasks/files";

export const dynamic = "force-dynamic";

/** The task files of an environment: { files: [{ path, size, sha256 }] }. */
export const GET = apiRoute<{ slug: string; key: string }>({ scope: "projects:read", project: "slug" }, async ({ db, params, project }) => {
  return listTaskFiles(db, project, params.key);
});
