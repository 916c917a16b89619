import { apiRoute } from "@/lib/api/route";
import { getProjectFor } from "@/lib/projects/service";
import { listTaskFiles } from "@/lib/tasks/files";

export const dynamic = "force-dynamic";

/** The task files of an environment: { files: [{ path, size, sha256 }] }. */
export const GET = apiRoute<{ slug: string; key: string }>(async ({ db, principal, params }) => {
  const project = await getProjectFor(db, params.slug, principal);
  return listTaskFiles(db, project, params.key);
});
