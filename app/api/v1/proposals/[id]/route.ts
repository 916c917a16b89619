import { apiRoute } from "@/lib/api/route";
import { getProposal } from "@/lib/engineer/proposals";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>(async ({ db, principal, params }) => getProposal(db, params.id, principal));
