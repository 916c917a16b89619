"use client";

import { useRouter } from "next/navigation";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { apiFetch } from "@/components/ui/api-client";
import { ConfirmButton } from "@/components/ui/confirm-button";

interface TargetRow {
  name: string;
  kind: string;
  adapter: string;
  config: unknown;
  secret: string | null;
  maxAttempts: number;
}

const small = "rounded border border-zinc-300 px-2 py-0.5 text-xs hover:bg-zinc-50 disabled:opacity-50";

/** Per-target actions (admins): test the connection, edit config/secret/attempts, delete (confirmed). */
export function TargetActions({ slug, target }: { slug: string; target: TargetRow }) {
  const router = useRouter();
  const url = `/api/v1/projects/${encodeURIComponent(slug)}/targets/${encodeURIComponent(target.name)}`;
  const [editing, setEditing] = useState(false);
  const [config, setConfig] = useState(() => JSON.stringify(target.config, null, 2));
  const [secret, setSecret] = useState("");
  const [attempts, setAttempts] = useState(String(target.maxAttempts));
  const [formError, setFormError] = useState<string | null>(null);
  const test = useMutation({ mutationFn: () => apiFetch<{ ok: boolean; message: string }>(`${url}/test`, { method: "POST", body: "{}" }) });
  const save = useMutation({
    mutationFn: (body: Record<string, unknown>) => apiFetch(url, { method: "PATCH", body: JSON.stringify(body) }),
    onSuccess: () => {
      setSecret("");
      setEditing(false);
      router.refresh();
    },
  });
  const remove = useMutation({ mutationFn: () => apiFetch(url, { method: "DELETE" }), onSuccess: () => router.refresh() });
  const submit = () => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(config);
    } catch (e) {
      setFormError(`The config is not JSON: ${(e as Error).message}`);
      return;
    }
    setFormError(null);
    save.mutate({ config: parsed, maxAttempts: Number(attempts), ...(secret ? { secret } : {}) });
  };
  const error = (save.error ?? remove.error) as Error | null;
  return (
    <div className="space-y-1" data-testid={`target-actions-${target.name}`}>
      <div className="flex flex-wrap gap-1">
        <button type="button" className={small} onClick={() => test.mutate()} disabled={test.isPending} data-testid="target-test">
          {test.isPending ? "Testing…" : "Test connection"}
        </button>
        <button type="button" className={small} onClick={() => setEditing((v) => !v)} aria-expanded={editing}>
          Edit
        </button>
        <ConfirmButton
          message={`Delete ${target.name}? Its dispatches go with it.`}
          confirmLabel={`Delete ${target.name}`}
          tone="danger"
          onConfirm={() => remove.mutate()}
          className={`${small} text-red-700`}
          testId="target-delete"
        >
          Delete
        </ConfirmButton>
      </div>
      {test.data && (
        <p className={`text-xs ${test.data.ok ? "text-green-700" : "text-red-700"}`} role="status" data-testid="target-test-result">
          {test.data.ok ? "✓ " : "✗ "}
          {test.data.message}
        </p>
      )}
      {test.error && <p className="text-xs text-red-700">{(test.error as Error).message}</p>}
      {editing && (
        <form
          className="space-y-1 rounded border border-zinc-200 p-2 text-xs"
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
          autoComplete="off"
        >
          <label className="flex flex-col gap-1">
            Config
            <textarea
              value={config}
              onChange={(e) => setConfig(e.target.value)}
              rows={5}
              spellCheck={false}
              className="rounded border border-zinc-300 px-2 py-1 font-mono"
              aria-label={`Config of ${target.name}`}
            />
          </label>
          <div className="flex flex-wrap items-end gap-2">
            <label className="flex flex-col gap-1">
              New secret ({target.secret ?? "none set"}; empty keeps it)
              <input
                type="password"
                autoComplete="new-password"
                value={secret}
                onChange={(e) => setSecret(e.target.value)}
                className="rounded border border-zinc-300 px-2 py-1"
                aria-label={`New secret of ${target.name}`}
              />
            </label>
            <label className="flex flex-col gap-1">
              Attempts
              <input
                value={attempts}
                onChange={(e) => setAttempts(e.target.value)}
                inputMode="numeric"
                className="w-16 rounded border border-zinc-300 px-2 py-1"
                aria-label={`Attempts of ${target.name}`}
              />
            </label>
            <button className="rounded bg-zinc-900 px-2.5 py-1 font-medium text-white disabled:opacity-50" disabled={save.isPending}>
              Save
            </button>
          </div>
        </form>
      )}
      {(formError || error) && <p className="text-xs text-red-700">{formError ?? error?.message}</p>}
    </div>
  );
}
