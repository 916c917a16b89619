/** `envforge import harbor-tasks <dir>`: a folder of Harbor task folders (or one task), packed and imported by the server. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import * as tar from "tar";
import type { TaskImportSummary } from "@/lib/tasks/store";
import type { EnvForgeClient } from "../client";
import { Progress } from "../progress";

interface ImportView {
  id: string;
  status: "queued" | "running" | "succeeded" | "failed";
  progress: { phase: string; done: number; total: number | null } | null;
  summary: { tasks?: TaskImportSummary } | null;
  error: string | null;
}

/** Pack `dir` as a .tar.gz; a symbolic link anywhere in it stops the import with its path (links are never followed). */
export async function packTaskFolder(dir: string, file: string): Promise<void> {
  const root = path.resolve(dir);
  // a throw inside tar's filter would escape its promise: remember the first link and fail after
  let link: string | undefined;
  await tar.c(
    {
      gzip: true,
      file,
      cwd: path.dirname(root),
      portable: true,
      follow: false,
      filter: (p, stat) => {
        if ("isSymbolicLink" in stat && stat.isSymbolicLink()) {
          link ??= p;
          return false;
        }
        return true;
      },
    },
    [path.basename(root)],
  );
  if (link) throw new Error(`${link}: symbolic links are not allowed in task folders (never followed)`);
}

/** Import the task folders under `dir`; waits for the server's import and returns its summary. */
export async function importHarborTasks(
  client: EnvForgeClient,
  dir: string,
  opts: { project: string; generation?: number; quiet?: boolean; pollMs?: number },
): Promise<TaskImportSummary> {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory())
    throw new Error(`${dir} is not a folder: pass a Harbor dataset folder (task folders with task.toml) or one task folder.`);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "envforge-tasks-"));
  try {
    const file = path.join(work, "tasks.tar.gz");
    await packTaskFolder(dir, file);
    const query = new URLSearchParams({ kind: "harbor-tasks", filename: `${path.basename(path.resolve(dir))}.tar.gz` });
    if (opts.generation !== undefined) query.set("generation", String(opts.generation));
    const blob = await fs.openAsBlob(file);
    const created = await client.request<ImportView>("POST", `/api/v1/projects/${encodeURIComponent(opts.project)}/imports?${query}`, {
      raw: blob,
      contentType: "application/gzip",
    });
    const progress = new Progress("importing tasks", null, opts.quiet);
    for (;;) {
      const imp = await client.request<ImportView>("GET", `/api/v1/imports/${created.id}`);
      if (imp.status === "succeeded" && imp.summary?.tasks) {
        progress.done();
        return imp.summary.tasks;
      }
      if (imp.status === "failed" || imp.status === "succeeded") {
        progress.done();
        throw new Error(`The import failed: ${imp.error ?? "no task summary"}`);
      }
      if (imp.progress) progress.update(imp.progress.done, imp.progress.total ? `of ${imp.progress.total}` : imp.progress.phase);
      await new Promise((r) => setTimeout(r, opts.pollMs ?? 500));
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
