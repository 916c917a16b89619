import { apiRoute } from "@/lib/api/route";
import { getImport } from "@/lib/ingest/imports";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>({ scope: "projects:read", project: "entity" }, async ({ db, principal, params }) =>
  getImport(db, params.id, principal),
);
