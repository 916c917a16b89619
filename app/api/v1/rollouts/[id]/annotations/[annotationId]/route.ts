import { apiRoute, intParam } from "@/lib/api/route";
import { annotationPatch, deleteAnnotation, updateAnnotation, type AnnotationPatch } from "@/lib/annotations/service";

export const dynamic = "force-dynamic";

/** Edit an annotation: its author or a project admin (the service checks who wrote it), within the rollout's project. */
export const PATCH = apiRoute<{ id: string; annotationId: string }, AnnotationPatch>(
  { scope: "annotations:write", project: "entity", body: annotationPatch },
  async ({ db, principal, params, body }) => {
    return updateAnnotation(db, intParam(params.id, "id"), intParam(params.annotationId, "annotationId"), principal, body);
  },
);

/** Delete an annotation: its author or a project admin; the audit log keeps what it said. */
export const DELETE = apiRoute<{ id: string; annotationId: string }>(
  { scope: "annotations:write", project: "entity" },
  async ({ db, principal, params }) => {
    await deleteAnnotation(db, intParam(params.id, "id"), intParam(params.annotationId, "annotationId"), principal);
    return new Response(null, { status: 204 });
  },
);
