import { apiRoute } from "@/lib/api/route";
import { listSavedViews, saveView, savedViewInput, type SavedViewInput } from "@/lib/rollouts/saved-views";

export const dynamic = "force-dynamic";

/** The caller's saved explorer views (each user sees only their own). */
export const GET = apiRoute<{ slug: string }>({ scope: "projects:read", project: "slug" }, async ({ db, principal, project }) => {
  return listSavedViews(db, project, principal);
});

/** Views are private to the caller: every role that reads rollouts (not ingest keys) may keep them. */
export const POST = apiRoute<{ slug: string }, SavedViewInput>(
  { scope: "views:write", project: "slug", body: savedViewInput },
  async ({ db, principal, project, body }) => {
    return Response.json(await saveView(db, project, principal, body), { status: 201 });
  },
);
