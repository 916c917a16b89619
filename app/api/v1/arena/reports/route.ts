import { apiRoute, readJsonBody } from "@/lib/api/route";
import { uploadArenaReport } from "@/lib/arena-runs/service";

export const dynamic = "force-dynamic";

/** Store an arena report made by `envforge arena --upload`. */
export const POST = apiRoute({ scope: "generations:write", project: "global" }, async ({ req, db, principal }) =>
  Response.json(await uploadArenaReport(db, await readJsonBody(req), principal), { status: 201 }),
);
