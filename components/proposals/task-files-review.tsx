"use client";
/**
 * An evolved terminal task in review: per-file unified diff against its parent (lines added and
 * removed highlighted, from the `diff` package), the task.toml changes key by key, and an inline
 * CodeMirror editor for one file at a time; saving validates on the server (422 names what broke),
 * undo brings back the engineer's edits.
 */
import CodeMirror from "@uiw/react-codemirror";
import { EditorView } from "@codemirror/view";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { structuredPatch } from "diff";
import { useState } from "react";
import { apiFetch } from "@/components/ui/api-client";
import { Button } from "@/components/ui/button";
import { Table, type Column } from "@/components/ui/table";
import { languageFor } from "@/components/tasks/code-languages";

interface TaskDiff {
  itemId: string;
  parentKey: string | null;
  source: "reviewer" | "engineer" | "config" | "none";
  editable: boolean;
  files: { path: string; before: string | null; after: string }[];
  taskToml: { key: string; before: unknown; after: unknown }[];
  errors: { path: string; message: string }[];
}

const show = (v: unknown) => (v === null || v === undefined ? "—" : typeof v === "string" ? v : JSON.stringify(v));

const TOML_COLUMNS: Column<TaskDiff["taskToml"][number]>[] = [
  { key: "key", header: "key", rowHeader: true, className: "font-mono", cell: (c) => c.key },
  { key: "parent", header: "parent", className: "font-mono text-red-800", cell: (c) => show(c.before) },
  { key: "child", header: "child", className: "font-mono text-green-800", cell: (c) => show(c.after) },
];

/** Unified diff of one file, three lines of context, added and removed lines highlighted. */
function FileDiff({ path, before, after }: { path: string; before: string | null; after: string }) {
  const patch = structuredPatch(`a/${path}`, `b/${path}`, before ?? "", after, "", "", { context: 3 });
  return (
    <pre className="overflow-x-auto rounded border border-zinc-200 bg-zinc-50 text-xs leading-5" data-testid="file-diff" data-path={path}>
      {patch.hunks.map((h, k) => (
        <div key={k}>
          <div className="bg-sky-50 px-2 text-sky-800">{`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`}</div>
          {h.lines.map((line, j) => {
            const kind = line[0] === "+" ? "add" : line[0] === "-" ? "del" : line[0] === "\\" ? "note" : "ctx";
            const style = kind === "add" ? "bg-green-100 text-green-900" : kind === "del" ? "bg-red-100 text-red-900" : "text-zinc-700";
            return (
              <div key={j} className={`px-2 whitespace-pre ${style}`} data-testid={`diff-line-${kind}`}>
                {line}
              </div>
            );
          })}
        </div>
      ))}
    </pre>
  );
}

/** The files of an evolved task item: diffs, task.toml changes, inline edit and undo. */
export function TaskFilesReview({ proposalId, itemId, reviewable }: { proposalId: string; itemId: string; reviewable: boolean }) {
  const queryClient = useQueryClient();
  const url = `/api/v1/proposals/${proposalId}/items/${itemId}/files`;
  const diff = useQuery({ queryKey: ["task-diff", itemId], queryFn: () => apiFetch<TaskDiff>(url) });
  const [editing, setEditing] = useState<{ path: string; text: string } | null>(null);
  const done = (data: TaskDiff) => {
    queryClient.setQueryData(["task-diff", itemId], data);
    void queryClient.invalidateQueries({ queryKey: ["proposal", proposalId] });
  };
  const save = useMutation({
    mutationFn: (file: { path: string; content: string }) =>
      apiFetch<TaskDiff>(url, { method: "PUT", body: JSON.stringify({ files: [file] }) }),
    onSuccess: (data) => {
      done(data);
      setEditing(null);
    },
  });
  const revert = useMutation({ mutationFn: () => apiFetch<TaskDiff>(url, { method: "DELETE" }), onSuccess: done });

  if (diff.isPending) return <p className="text-xs text-zinc-500">Loading the task's files…</p>;
  if (diff.isError) return <p className="text-xs text-red-700">Could not load the task's files: {(diff.error as Error).message}</p>;
  const d = diff.data;
  if (d.source === "none") return null;
  const canEdit = reviewable && d.editable;
  return (
    <section className="mt-2 space-y-2" data-testid="task-files-review" data-source={d.source}>
      <div className="flex flex-wrap items-center gap-2 text-xs text-zinc-600">
        <span className="font-medium text-zinc-800">Task files against {d.parentKey}</span>
        <span>
          {d.source === "reviewer"
            ? "edited by a reviewer"
            : d.source === "engineer"
              ? "the engineer's edits"
              : "task.toml from the config"}
        </span>
        {d.source === "reviewer" && canEdit && (
          <Button size="sm" onClick={() => revert.mutate()} busy={revert.isPending} data-testid="task-files-undo">
            Undo file edits
          </Button>
        )}
      </div>
      {d.errors.length > 0 && (
        <ul className="rounded border border-red-200 bg-red-50 p-2 text-xs text-red-800" data-testid="task-files-errors">
          {d.errors.map((e, k) => (
            <li key={k}>
              {e.path}: {e.message}
            </li>
          ))}
        </ul>
      )}
      {d.taskToml.length > 0 && (
        <Table
          columns={TOML_COLUMNS}
          rows={d.taskToml}
          rowKey={(c) => c.key}
          size="xs"
          compact
          caption="task.toml changes"
          showCaption
          testId="task-toml-changes"
        />
      )}
      {d.files.map((f) => (
        <div key={f.path} className="space-y-1">
          <div className="flex items-center gap-2 text-xs">
            <span className="font-mono font-medium">{f.path}</span>
            {f.before === null && <span className="rounded bg-green-50 px-1 text-green-800">new</span>}
            {canEdit && editing?.path !== f.path && (
              <Button size="sm" onClick={() => setEditing({ path: f.path, text: f.after })} data-testid="task-file-edit">
                Edit
              </Button>
            )}
          </div>
          {editing?.path === f.path ? (
            <div className="space-y-1" data-testid="task-file-editor">
              <CodeMirror
                value={editing.text}
                onChange={(text) => setEditing({ path: f.path, text })}
                extensions={[...languageFor(f.path), EditorView.lineWrapping]}
                basicSetup={{ foldGutter: false }}
                className="rounded border border-zinc-300 text-xs"
              />
              {save.isError && (
                <p className="text-xs text-red-700" role="alert" data-testid="task-file-error">
                  {(save.error as Error).message}
                </p>
              )}
              <div className="flex gap-2">
                <Button
                  size="sm"
                  variant="approve"
                  busy={save.isPending}
                  onClick={() => save.mutate({ path: f.path, content: editing.text })}
                  data-testid="task-file-save"
                >
                  Save file
                </Button>
                <Button size="sm" onClick={() => setEditing(null)}>
                  Cancel
                </Button>
              </div>
            </div>
          ) : (
            <FileDiff path={f.path} before={f.before} after={f.after} />
          )}
        </div>
      ))}
    </section>
  );
}
