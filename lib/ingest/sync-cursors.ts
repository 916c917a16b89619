/** Where a sync from an outside store stopped, per project, source and URL (so a rerun fetches only what is new). */
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { syncCursors } from "@/lib/db/schema";
import { parseOrThrow } from "@/lib/errors";

export const syncCursorKeySchema = z.object({
  source: z.enum(["agent-lightning"], { message: "must be agent-lightning" }),
  url: z.url("must be the store's URL").max(2000),
});
export const putSyncCursorSchema = z.strictObject({ ...syncCursorKeySchema.shape, cursor: z.string().max(2000).nullable() });

/** The saved cursor, or null when this store was never synced into the project. */
export async function getSyncCursor(
  db: Db,
  projectId: number,
  query: unknown,
): Promise<{ source: string; url: string; cursor: string | null }> {
  const key = parseOrThrow(syncCursorKeySchema, query, "query", 400);
  const [row] = await db
    .select({ cursor: syncCursors.cursor })
    .from(syncCursors)
    .where(and(eq(syncCursors.projectId, projectId), eq(syncCursors.source, key.source), eq(syncCursors.url, key.url)));
  return { ...key, cursor: row?.cursor ?? null };
}

/** Save the cursor after a page of rollouts was stored. */
export async function putSyncCursor(db: Db, projectId: number, body: unknown) {
  const input = parseOrThrow(putSyncCursorSchema, body);
  await db
    .insert(syncCursors)
    .values({ projectId, source: input.source, url: input.url, cursor: input.cursor })
    .onConflictDoUpdate({
      target: [syncCursors.projectId, syncCursors.source, syncCursors.url],
      set: { cursor: input.cursor, updatedAt: new Date() },
    });
  return input;
}
