import { apiRoute, intParam } from "@/lib/api/route";
import { annotationInput, createAnnotation, listAnnotations, type AnnotationInput } from "@/lib/annotations/service";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>({ scope: "projects:read", project: "entity" }, async ({ db, principal, params }) => {
  return listAnnotations(db, intParam(params.id, "id"), principal);
});

/** Annotating is review work: reviewers and admins (annotations:write), checked against the rollout's project. */
export const POST = apiRoute<{ id: string }, AnnotationInput>(
  { scope: "annotations:write", project: "entity", body: annotationInput },
  async ({ db, principal, params, body }) => {
    return Response.json(await createAnnotation(db, intParam(params.id, "id"), principal, body), { status: 201 });
  },
);
