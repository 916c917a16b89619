import { apiRoute } from "@/lib/api/route";
import { claimInput, claimRollout, type ClaimInput } from "@/lib/annotation-queue/locks";

export const dynamic = "force-dynamic";

/** Lock the first candidate no other reviewer holds (and let go of `release`): annotating is review work. */
export const POST = apiRoute<{ slug: string }, ClaimInput>(
  { scope: "annotations:write", project: "slug", body: claimInput },
  async ({ db, principal, project, body }) => {
    return claimRollout(db, project, principal, body);
  },
);
