"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { useHydrated } from "@/components/ui/use-hydrated";
import { apiFetch } from "@/components/ui/api-client";
import { Field, fieldClass } from "@/components/ui/form";

interface ImportView {
  id: string;
  kind: string;
  filename: string | null;
  bytes: number | null;
  status: "queued" | "running" | "succeeded" | "failed";
  progress: { phase: string; done: number; total: number | null } | null;
  summary: {
    accepted: number;
    duplicates: number;
    rejected: { line: number; code: string; message: string }[];
    /** a .tar.gz of Harbor task folders */
    tasks?: { created: string[]; attached: string[]; unchanged: string[]; files: { total: number; newBlobs: number } };
  } | null;
  error: string | null;
  createdAt: string;
}

function kindOf(name: string): "ndjson" | "harbor" | null {
  if (/\.(ndjson|jsonl)$/i.test(name)) return "ndjson";
  if (/\.(tar\.gz|tgz)$/i.test(name)) return "harbor";
  return null;
}

/** Send a file with upload progress (fetch cannot report it). */
function sendFile(url: string, file: File, onProgress: (share: number) => void): Promise<ImportView> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    xhr.setRequestHeader("content-type", "application/octet-stream");
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onload = () => {
      const data = (() => {
        try {
          return JSON.parse(xhr.responseText);
        } catch {
          return {};
        }
      })();
      if (xhr.status === 202) resolve(data);
      else reject(new Error(data?.error?.message ?? `Upload failed (${xhr.status})`));
    };
    xhr.onerror = () => reject(new Error("The upload was interrupted; check the connection and try again."));
    xhr.send(file);
  });
}

function ImportStatus({ imp }: { imp: ImportView }) {
  const p = imp.progress;
  const share = p?.total ? Math.min(1, p.done / p.total) : null;
  return (
    <div className="rounded border border-zinc-200 p-2" data-testid="import-status">
      <div className="flex items-center gap-2">
        <span className="font-medium">{imp.filename ?? imp.kind}</span>
        <span className="text-zinc-500">{imp.bytes ? `${(imp.bytes / 1e6).toFixed(1)} MB` : ""}</span>
        <span
          className={`ml-auto rounded px-1.5 py-0.5 text-xs ${
            imp.status === "succeeded"
              ? "bg-emerald-100 text-emerald-800"
              : imp.status === "failed"
                ? "bg-red-100 text-red-800"
                : "bg-zinc-100 text-zinc-700"
          }`}
        >
          {imp.status}
        </span>
      </div>
      {(imp.status === "queued" || imp.status === "running") && (
        <div className="mt-1 text-zinc-600">
          {p?.phase ?? "queued"} {p ? `${p.done}${p.total ? ` / ${p.total}` : ""}` : ""}
          {share !== null && (
            <div className="mt-1 h-1.5 w-full rounded bg-zinc-100">
              <div className="h-1.5 rounded bg-zinc-800" style={{ width: `${share * 100}%` }} />
            </div>
          )}
        </div>
      )}
      {imp.summary && (
        <div className="mt-1 num" data-testid="import-summary">
          {imp.summary.tasks
            ? `imported ${imp.summary.accepted} tasks (${imp.summary.tasks.created.length} new, ${imp.summary.tasks.attached.length} ` +
              `joined to their rollouts, ${imp.summary.duplicates} unchanged, ${imp.summary.rejected.length} rejected; ` +
              `${imp.summary.tasks.files.total} files, ${imp.summary.tasks.files.newBlobs} new contents)`
            : `imported ${imp.summary.accepted} rollouts (${imp.summary.duplicates} duplicates, ${imp.summary.rejected.length} rejected)`}
          {imp.summary.rejected.length > 0 && (
            <ul className="mt-1 max-h-32 overflow-auto font-mono text-xs text-red-700">
              {imp.summary.rejected.slice(0, 50).map((r) => (
                <li key={`${r.line}-${r.code}`}>{r.code === "invalid_task" ? r.message : `line ${r.line} (${r.code}): ${r.message}`}</li>
              ))}
            </ul>
          )}
        </div>
      )}
      {imp.error && <div className="mt-1 text-red-700">{imp.error}</div>}
    </div>
  );
}

/**
 * Upload an NDJSON file, or a .tar.gz of a Harbor job or of Harbor task folders (the server tells them apart); the worker imports it
 * and this panel follows its progress.
 */
export function ImportPanel({ project }: { project: string }) {
  const router = useRouter();
  const qc = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  const [uploading, setUploading] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [generation, setGeneration] = useState("");
  const imports = useQuery({
    queryKey: ["imports", project],
    queryFn: () => apiFetch<{ imports: ImportView[] }>(`/api/v1/projects/${project}/imports`),
    refetchInterval: (q) => (q.state.data?.imports.some((i) => i.status === "queued" || i.status === "running") ? 1000 : false),
  });
  const active = imports.data?.imports.some((i) => i.status === "queued" || i.status === "running");
  const wasActive = useRef(false);
  useEffect(() => {
    if (wasActive.current && !active) router.refresh(); // new rollouts change the figures above
    wasActive.current = Boolean(active);
  }, [active, router]);

  async function start(file: File) {
    setError(null);
    const kind = kindOf(file.name);
    if (!kind) {
      setError(`${file.name}: choose an .ndjson / .jsonl file of rollouts, or a .tar.gz of a Harbor job folder or of Harbor task folders.`);
      return;
    }
    const query = new URLSearchParams({ kind, filename: file.name });
    if (generation.trim()) query.set("generation", generation.trim());
    setUploading(0);
    try {
      const created = await sendFile(`/api/v1/projects/${project}/imports?${query}`, file, setUploading);
      // listed at once from the server's answer, not only once the list is read again (a busy server may answer that late)
      qc.setQueryData<{ imports: ImportView[] }>(["imports", project], (old) => ({
        imports: [created, ...(old?.imports ?? []).filter((i) => i.id !== created.id)],
      }));
      await qc.invalidateQueries({ queryKey: ["imports", project] });
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setUploading(null);
      if (input.current) input.current.value = "";
    }
  }

  // the server renders the file input disabled until React listens for the choice: a file picked before that was dropped
  // without a word (hydration empties the input), and on a slow first load that is seconds in which a person can pick one
  const ready = useHydrated();

  // The choice is taken by a listener on the input itself, and a file already there when the page starts listening is
  // taken too: under load in CI a file set right after the input was enabled was twice never uploaded, no request sent
  // and no word shown (React's delegated onChange never ran; not reproduced alone). Each File is started once.
  const latestStart = useRef(start);
  useEffect(() => {
    latestStart.current = start;
  });
  const taken = useRef<File | null>(null);
  useEffect(() => {
    const el = input.current;
    if (!ready || !el) return;
    const take = () => {
      const file = el.files?.[0];
      if (!file || taken.current === file) return;
      taken.current = file;
      void latestStart.current(file);
    };
    take();
    el.addEventListener("change", take);
    return () => el.removeEventListener("change", take);
  }, [ready]);

  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-end gap-2">
        <label className="flex flex-col">
          <span className="text-xs text-zinc-500">Rollouts file (.ndjson), Harbor job or Harbor task folders (.tar.gz)</span>
          <input
            ref={input}
            type="file"
            accept=".ndjson,.jsonl,.gz,.tgz"
            aria-label="Import file"
            className="text-sm"
            disabled={!ready || uploading !== null}
          />
        </label>
        <Field label="Generation (optional)">
          <input
            className={`w-24 ${fieldClass}`}
            inputMode="numeric"
            value={generation}
            onChange={(e) => setGeneration(e.target.value)}
            placeholder="latest"
          />
        </Field>
        {uploading !== null && <span className="text-zinc-600">uploading {(uploading * 100).toFixed(0)}%</span>}
      </div>
      {error && (
        <p role="alert" className="text-red-700">
          {error}
        </p>
      )}
      {imports.data?.imports.slice(0, 3).map((imp) => (
        <ImportStatus key={imp.id} imp={imp} />
      ))}
    </div>
  );
}
