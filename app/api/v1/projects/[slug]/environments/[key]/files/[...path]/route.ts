import { apiRoute } from "@/lib/api/route";
import { taskFileResponse } from "@/lib/tasks/files";

export const dynamic = "force-dynamic";

/** The raw bytes of one task file (text/plain or application/octet-stream, nosniff). */
export const GET = apiRoute<{ slug: string; key: string; path: string[] | string }>(
  { scope: "projects:read", project: "slug" },
  async ({ db, params, project }) => {
    const segments = Array.isArray(params.path) ? params.path : params.path.split("/");
    return taskFileResponse(db, project, params.key, segments.join("/"));
  },
);
