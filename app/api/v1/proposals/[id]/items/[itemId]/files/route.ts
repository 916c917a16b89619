import { apiRoute, readJsonBody } from "@/lib/api/route";
import { editItemTaskFiles, itemTaskDiff, revertItemTaskFiles } from "@/lib/review/task-files";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string; itemId: string }>(
  { scope: "projects:read", project: "entity" },
  async ({ db, principal, params }) => itemTaskDiff(db, params.id, params.itemId, principal),
);

export const PUT = apiRoute<{ id: string; itemId: string }>(
  { scope: "proposals:review", project: "entity" },
  async ({ req, db, principal, params }) => editItemTaskFiles(db, params.id, params.itemId, await readJsonBody(req), principal),
);

export const DELETE = apiRoute<{ id: string; itemId: string }>(
  { scope: "proposals:review", project: "entity" },
  async ({ db, principal, params }) => revertItemTaskFiles(db, params.id, params.itemId, principal),
);
