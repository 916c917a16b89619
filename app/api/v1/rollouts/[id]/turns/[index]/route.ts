import { apiRoute, intParam } from "@/lib/api/route";
import { turnSlice } from "@/lib/rollouts/turns";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string; index: string }>(
  { scope: "projects:read", project: "entity" },
  async ({ db, principal, params, req }) => {
    return turnSlice(
      db,
      intParam(params.id, "id"),
      intParam(params.index, "index"),
      Object.fromEntries(new URL(req.url).searchParams),
      principal,
    );
  },
);
