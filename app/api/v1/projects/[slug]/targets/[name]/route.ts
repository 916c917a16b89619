import { apiRoute, readJsonBody } from "@/lib/api/route";
import { deleteTarget } from "@/lib/dispatch/service";
import { updateTarget } from "@/lib/dispatch/manage";

export const dynamic = "force-dynamic";

/** Change a target's kind, adapter, config, secret (replace or remove) or attempts (admin). */
export const PATCH = apiRoute<{ slug: string; name: string }>(
  { scope: "targets:manage", project: "slug" },
  async ({ req, db, principal, params, project }) => {
    return updateTarget(db, project, params.name, await readJsonBody(req), principal);
  },
);

export const DELETE = apiRoute<{ slug: string; name: string }>(
  { scope: "targets:manage", project: "slug" },
  async ({ db, principal, params, project }) => {
    await deleteTarget(db, project, params.name, principal);
    return new Response(null, { status: 204 });
  },
);
