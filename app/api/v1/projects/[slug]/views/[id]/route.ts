import { apiRoute } from "@/lib/api/route";
import { BadRequest } from "@/lib/errors";
import { deleteSavedView } from "@/lib/rollouts/saved-views";

export const dynamic = "force-dynamic";

export const DELETE = apiRoute<{ slug: string; id: string }>(
  { scope: "views:write", project: "slug" },
  async ({ db, principal, project, params }) => {
    const id = Number(params.id);
    if (!Number.isSafeInteger(id) || id <= 0) throw new BadRequest("id must be a saved view's id.", [{ path: "id", message: "not an id" }]);
    return deleteSavedView(db, project, principal, id);
  },
);
