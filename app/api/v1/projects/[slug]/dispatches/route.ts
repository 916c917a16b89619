import { apiRoute } from "@/lib/api/route";
import { getProjectFor } from "@/lib/projects/service";
import { listDispatches } from "@/lib/dispatch/service";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ slug: string }>(async ({ db, principal, params }) => listDispatches(db, await getProjectFor(db, params.slug, principal)));
