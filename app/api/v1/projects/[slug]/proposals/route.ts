import { apiRoute } from "@/lib/api/route";
import { getProjectFor } from "@/lib/projects/service";
import { listProposals } from "@/lib/engineer/proposals";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ slug: string }>(async ({ db, principal, params }) => listProposals(db, await getProjectFor(db, params.slug, principal)));
