import { apiRoute } from "@/lib/api/route";
import { getProposal } from "@/lib/proposals";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>({ scope: "projects:read", project: "entity" }, async ({ db, principal, params }) =>
  getProposal(db, params.id, principal),
);
