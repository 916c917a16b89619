/** Reading a task environment's files for the API and the environment page. */
import { and, eq } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { blobs, environmentFiles, environments } from "@/lib/db/schema";
import { BadRequest, NotFound } from "@/lib/errors";
import type { ProjectRow } from "@/lib/projects/service";
import { environmentFileList } from "./store";

/** The id of a project's environment by key (404 when missing). */
export async function environmentId(db: Db, project: ProjectRow, key: string): Promise<number> {
  const [env] = await db
    .select({ id: environments.id })
    .from(environments)
    .where(and(eq(environments.projectId, project.id), eq(environments.key, key)));
  if (!env) throw new NotFound(`Environment '${key}' does not exist in '${project.slug}'.`);
  return env.id;
}

/** GET .../environments/{key}/files: every file with its size and sha256 (empty for an environment without task files). */
export async function listTaskFiles(db: Db, project: ProjectRow, key: string) {
  const rows = await environmentFileList(db, await environmentId(db, project, key));
  return { files: rows.map((r) => ({ path: r.path, size: r.size, sha256: r.sha256, executable: r.executable })) };
}

/** A file path as the API takes it: relative, '/'-separated, no '.', '..' or empty segments. */
export function checkTaskFilePath(raw: string): string {
  const p = raw.replace(/^\/+/, "");
  const parts = p.split("/");
  if (!p || p.includes("\\") || p.includes("\0") || parts.some((s) => s === "" || s === "." || s === "..")) {
    throw new BadRequest(`'${raw}' is not a file path of a task (relative, '/'-separated, no '.' or '..' segments).`, [
      { path: "path", message: "invalid task file path" },
    ]);
  }
  return p;
}

/** The bytes of one file, or null when the path is not a file of the environment. */
export async function readTaskFile(
  db: Db,
  environmentIdValue: number,
  filePath: string,
): Promise<{ data: Buffer; sha256: string; executable: boolean } | null> {
  const [row] = await db
    .select({ data: blobs.data, sha256: blobs.sha256, executable: environmentFiles.executable })
    .from(environmentFiles)
    .innerJoin(blobs, eq(blobs.sha256, environmentFiles.sha256))
    .where(and(eq(environmentFiles.environmentId, environmentIdValue), eq(environmentFiles.path, filePath)));
  return row ?? null;
}

/** True when the bytes read as UTF-8 text (no NUL, no invalid sequences). */
export function isText(data: Buffer): boolean {
  if (data.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(data);
    return true;
  } catch {
    return false;
  }
}

/** GET .../environments/{key}/files/{path}: the raw bytes, served so a browser never runs or sniffs them. */
export async function taskFileResponse(db: Db, project: ProjectRow, key: string, rawPath: string): Promise<Response> {
  const filePath = checkTaskFilePath(rawPath);
  const file = await readTaskFile(db, await environmentId(db, project, key), filePath);
  if (!file) throw new NotFound(`Environment '${key}' has no file '${filePath}'.`);
  const name = filePath
    .split("/")
    .pop()!
    .replace(/[^A-Za-z0-9._-]/g, "_");
  return new Response(new Uint8Array(file.data), {
    headers: {
      "content-type": isText(file.data) ? "text/plain; charset=utf-8" : "application/octet-stream",
      "content-length": String(file.data.length),
      "x-content-type-options": "nosniff",
      "content-security-policy": "sandbox; default-src 'none'",
      "content-disposition": `inline; filename="${name}"`,
      etag: `"${file.sha256}"`,
      "cache-control": "private, max-age=0, must-revalidate",
    },
  });
}
