import { apiRoute } from "@/lib/api/route";
import { itemHistory } from "@/lib/review/history";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string; itemId: string }>(
  { scope: "projects:read", project: "entity" },
  async ({ db, principal, params }) => itemHistory(db, params.id, params.itemId, principal),
);
