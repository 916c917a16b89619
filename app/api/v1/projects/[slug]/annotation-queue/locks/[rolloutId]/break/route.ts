import { apiRoute, intParam } from "@/lib/api/route";
import { breakLock } from "@/lib/annotation-queue/locks";

export const dynamic = "force-dynamic";

/** Break another reviewer's lock on a rollout (they walked away): managing the project, so admins only; audited. */
export const POST = apiRoute<{ slug: string; rolloutId: string }>(
  { scope: "projects:manage", project: "slug" },
  async ({ db, principal, project, params }) => {
    return breakLock(db, project, principal, intParam(params.rolloutId, "rolloutId"));
  },
);
