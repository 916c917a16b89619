import { z } from "zod";
import { apiRoute, intParam } from "@/lib/api/route";
import { parseOrThrow } from "@/lib/api/errors";
import { searchParamsOf } from "@/lib/api/contracts";
import { getProjectFor } from "@/lib/projects/service";
import { getGeneration } from "@/lib/generations/service";
import { comparePolicies } from "@/lib/generations/analytics";

export const dynamic = "force-dynamic";

const query = z.object({
  a: z.string().min(1).optional(),
  b: z.string().min(1).optional(),
  margin: z.coerce.number().min(0).max(1).default(0.2),
});

export const GET = apiRoute<{ slug: string; index: string }>(async ({ req, db, principal, params }) => {
  const project = await getProjectFor(db, params.slug, principal);
  const generation = await getGeneration(db, project, intParam(params.index, "index"));
  const q = parseOrThrow(query, searchParamsOf(req), "query", 400);
  return comparePolicies(db, project, generation, q.a, q.b, q.margin);
});
