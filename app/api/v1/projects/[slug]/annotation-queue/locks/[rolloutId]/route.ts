import { apiRoute, intParam } from "@/lib/api/route";
import { releaseLock } from "@/lib/annotation-queue/locks";

export const dynamic = "force-dynamic";

/** Let go of the caller's own lock on a rollout (leaving the queue); another reviewer's lock is left alone. */
export const DELETE = apiRoute<{ slug: string; rolloutId: string }>(
  { scope: "annotations:write", project: "slug" },
  async ({ db, principal, project, params }) => {
    await releaseLock(db, project, principal, intParam(params.rolloutId, "rolloutId"));
    return new Response(null, { status: 204 });
  },
);
