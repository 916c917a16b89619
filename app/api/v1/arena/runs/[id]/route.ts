import { apiRoute, intParam } from "@/lib/api/route";
import { getArenaRun } from "@/lib/arena-runs/service";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>({ scope: "projects:read", project: "global" }, async ({ db, params }) =>
  getArenaRun(db, intParam(params.id, "id")),
);
