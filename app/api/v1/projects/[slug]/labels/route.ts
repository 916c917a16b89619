import { apiRoute } from "@/lib/api/route";
import { createLabel, labelInput, listLabels, type LabelInput } from "@/lib/annotations/service";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ slug: string }>({ scope: "projects:read", project: "slug" }, async ({ db, project }) => {
  return listLabels(db, project);
});

/** The label set is part of review work too: reviewers and admins. */
export const POST = apiRoute<{ slug: string }, LabelInput>(
  { scope: "annotations:write", project: "slug", body: labelInput },
  async ({ db, principal, project, body }) => {
    return Response.json(await createLabel(db, project, principal, body), { status: 201 });
  },
);
