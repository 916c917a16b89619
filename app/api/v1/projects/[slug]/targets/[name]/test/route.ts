import { apiRoute } from "@/lib/api/route";
import { testTarget } from "@/lib/dispatch/manage";

export const dynamic = "force-dynamic";

/** A dry request to the target (starts nothing): 200 { ok, message, status?, ms? } whether or not it answered. */
export const POST = apiRoute<{ slug: string; name: string }>(
  { scope: "targets:manage", project: "slug" },
  async ({ db, principal, params, project }) => {
    return testTarget(db, project, params.name, principal);
  },
);
