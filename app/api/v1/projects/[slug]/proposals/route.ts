import { apiRoute } from "@/lib/api/route";
import { listProposals } from "@/lib/proposals";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ slug: string }>({ scope: "projects:read", project: "slug" }, async ({ db, project }) =>
  listProposals(db, project),
);
