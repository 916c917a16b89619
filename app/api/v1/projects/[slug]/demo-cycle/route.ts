import { apiRoute } from "@/lib/api/route";
import { demoLoopJobSchema, requestDemoCycle } from "@/lib/demo/loop";
import { enqueue } from "@/lib/queue/boss";

export const dynamic = "force-dynamic";

/** Run one more cycle of the demo curriculum in the background. */
export const POST = apiRoute<{ slug: string }>({ scope: "proposals:review", project: "slug" }, async ({ db, principal, project }) => {
  const result = await requestDemoCycle(db, project, principal, (data) =>
    enqueue("envforge.demo-loop", demoLoopJobSchema, data, { retryLimit: 0 }),
  );
  return Response.json(result, { status: 202 });
});
