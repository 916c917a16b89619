/** POST .../rollouts for the HTTP API: the body streamed line by line into ingestion. */
import type { Db } from "@/lib/db/client";
import { BadRequest } from "@/lib/errors";
import { maxBodyBytes } from "@/lib/http/body";
import type { Principal } from "@/lib/auth/principal";
import { getFamily } from "@/lib/family-store";
import type { ProjectRow } from "@/lib/projects/service";
import { bodyKind, jsonArrayElements, limitedBody, ndjsonLines } from "./body";
import { ingestRollouts, type IngestSummary } from "./store";

/** Handle POST .../rollouts end to end; the summary is what the API returns. */
export async function postRollouts(db: Db, project: ProjectRow, principal: Principal, req: Request): Promise<IngestSummary> {
  const kind = bodyKind(req.headers.get("content-type"));
  // a dispatch's key posts to the environments of its own generation only
  const dispatchKey = principal.dispatchId ? { generation: principal.generationIndex ?? undefined } : null;
  const createEnvironments = !dispatchKey && ["1", "true"].includes(new URL(req.url).searchParams.get("createEnvironments") ?? "");
  const family = await getFamily(db, project.familyId);
  const { stream, cleanup } = await limitedBody(req, maxBodyBytes());
  try {
    const lines = kind === "ndjson" ? ndjsonLines(stream) : jsonArrayElements(stream);
    const summary = await ingestRollouts(db, project, family, lines, { createEnvironments, ...(dispatchKey ?? {}) });
    if (summary.accepted + summary.duplicates + summary.rejected.length === 0) {
      throw new BadRequest("The body holds no rollouts.");
    }
    return summary;
  } finally {
    await cleanup();
  }
}
