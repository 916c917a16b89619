import { apiRoute } from "@/lib/api/route";
import { searchParamsOf } from "@/lib/api/contracts";
import { annotationQueue } from "@/lib/annotation-queue/queue";

export const dynamic = "force-dynamic";

/** The queue over the explorer's filter (the query parameters of GET .../rollouts): its rollout ids in order and the progress. */
export const GET = apiRoute<{ slug: string }>({ scope: "projects:read", project: "slug" }, async ({ req, db, project }) => {
  return annotationQueue(db, project, searchParamsOf(req));
});
