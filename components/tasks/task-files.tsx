"use client";

import CodeMirror from "@uiw/react-codemirror";
import { EditorView } from "@codemirror/view";
import { useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { Button } from "@/components/ui/button";
import { languageFor } from "./code-languages";

export interface TaskFileEntry {
  path: string;
  size: number;
  sha256: string;
}

/** The file tree as indented rows: folders once, then their files. */
function treeRows(files: TaskFileEntry[]) {
  const rows: { kind: "dir" | "file"; name: string; depth: number; path: string; size?: number }[] = [];
  const seen = new Set<string>();
  for (const f of [...files].sort((a, b) => a.path.localeCompare(b.path))) {
    const parts = f.path.split("/");
    for (let i = 0; i < parts.length - 1; i++) {
      const dir = parts.slice(0, i + 1).join("/");
      if (!seen.has(dir)) {
        seen.add(dir);
        rows.push({ kind: "dir", name: `${parts[i]}/`, depth: i, path: dir });
      }
    }
    rows.push({ kind: "file", name: parts[parts.length - 1], depth: parts.length - 1, path: f.path, size: f.size });
  }
  return rows;
}

/** A task's file tree and a read-only viewer (syntax highlighting for text, a notice for binaries). */
export function TaskFiles({ slug, envKey, files }: { slug: string; envKey: string; files: TaskFileEntry[] }) {
  const [selected, setSelected] = useState(files.find((f) => f.path === "task.toml")?.path ?? files[0]?.path ?? null);
  const rows = useMemo(() => treeRows(files), [files]);
  const file = useQuery({
    queryKey: ["task-file", slug, envKey, selected],
    enabled: selected !== null,
    queryFn: async () => {
      const filePath = selected!.split("/").map(encodeURIComponent).join("/");
      const res = await fetch(`/api/v1/projects/${encodeURIComponent(slug)}/environments/${encodeURIComponent(envKey)}/files/${filePath}`);
      if (!res.ok) throw new Error(`Could not read ${selected} (${res.status})`);
      const binary = !(res.headers.get("content-type") ?? "").startsWith("text/");
      return binary
        ? { binary: true as const, size: Number(res.headers.get("content-length") ?? 0) }
        : { binary: false as const, text: await res.text() };
    },
  });
  return (
    <div className="grid grid-cols-1 gap-3 md:grid-cols-[16rem_1fr]" data-testid="task-files">
      <ul className="max-h-[28rem] overflow-auto font-mono text-xs" aria-label="Task files">
        {rows.map((r) =>
          r.kind === "dir" ? (
            <li key={`d:${r.path}`} className="py-0.5 text-zinc-500" style={{ paddingLeft: `${r.depth * 12}px` }}>
              {r.name}
            </li>
          ) : (
            <li key={r.path} style={{ paddingLeft: `${r.depth * 12}px` }}>
              <Button
                variant="item"
                size="xs"
                aria-current={selected === r.path || undefined}
                onClick={() => setSelected(r.path)}
                title={`${r.path} (${r.size} bytes)`}
              >
                <span className="truncate">{r.name}</span>
              </Button>
            </li>
          ),
        )}
      </ul>
      <div className="min-w-0 rounded border border-zinc-200" data-testid="task-file-viewer">
        <div className="border-b border-zinc-200 px-2 py-1 font-mono text-xs text-zinc-600">{selected}</div>
        {file.isLoading && <p className="p-2 text-sm text-zinc-500">Loading…</p>}
        {file.error && <p className="p-2 text-sm text-red-700">{(file.error as Error).message}</p>}
        {file.data?.binary && (
          <p className="p-2 text-sm text-zinc-600" data-testid="binary-notice">
            Binary file ({file.data.size} bytes): not shown. Download it from the files API.
          </p>
        )}
        {file.data && !file.data.binary && (
          <CodeMirror
            value={file.data.text}
            editable={false}
            readOnly
            basicSetup={{ foldGutter: false }}
            extensions={[...languageFor(selected ?? ""), EditorView.lineWrapping]}
            maxHeight="28rem"
          />
        )}
      </div>
    </div>
  );
}
