import { z } from "zod";
import { apiRoute, intParam } from "@/lib/api/route";
import { parseOrThrow } from "@/lib/errors";
import { searchParamsOf } from "@/lib/api/contracts";
import { getGeneration } from "@/lib/generations/service";
import { comparePolicies } from "@/lib/generations/analytics";

export const dynamic = "force-dynamic";

const query = z.object({
  a: z.string().min(1).optional(),
  b: z.string().min(1).optional(),
  margin: z.coerce.number().min(0).max(1).default(0.2),
});

export const GET = apiRoute<{ slug: string; index: string }>(
  { scope: "projects:read", project: "slug" },
  async ({ req, db, params, project }) => {
    const generation = await getGeneration(db, project, intParam(params.index, "index"));
    const q = parseOrThrow(query, searchParamsOf(req), "query", 400);
    return comparePolicies(db, project, generation, q.a, q.b, q.margin);
  },
);
