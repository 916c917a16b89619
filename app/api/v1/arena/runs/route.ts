import { apiRoute, readJsonBody } from "@/lib/api/route";
import { arenaJobSchema, listArenaRuns, queueArenaRun } from "@/lib/arena-runs/service";
import { enqueue } from "@/lib/queue/boss";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ scope: "projects:read", project: "global" }, async ({ db }) => ({ runs: await listArenaRuns(db) }));

/** Queue an arena run on a worker (quick by default). */
export const POST = apiRoute({ scope: "proposals:create", project: "global" }, async ({ req, db, principal }) => {
  const hasBody = Number(req.headers.get("content-length") ?? "0") > 0;
  const body = hasBody ? await readJsonBody(req) : {};
  const run = await queueArenaRun(db, body, principal, (data) =>
    enqueue("envforge.arena", arenaJobSchema, data, { retryLimit: 0, expireInSeconds: 30 * 60 }),
  );
  return Response.json(run, { status: 202 });
});
