import { apiRoute } from "@/lib/api/route";
import { listDispatches } from "@/lib/dispatch/service";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ slug: string }>({ scope: "projects:read", project: "slug" }, async ({ db, project }) =>
  listDispatches(db, project),
);
