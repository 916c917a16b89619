"use client";

import { useRouter } from "next/navigation";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { apiFetch } from "@/components/ui/api-client";
import { Button } from "@/components/ui/button";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { Field, fieldClass } from "@/components/ui/form";

interface TargetRow {
  name: string;
  kind: string;
  adapter: string;
  config: unknown;
  secret: string | null;
  maxAttempts: number;
}

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
        <Button size="sm" onClick={() => test.mutate()} busy={test.isPending} data-testid="target-test">
          {test.isPending ? "Testing…" : "Test connection"}
        </Button>
        <Button size="sm" onClick={() => setEditing((v) => !v)} aria-expanded={editing}>
          Edit
        </Button>
        <ConfirmButton
          message={`Delete ${target.name}? Its dispatches go with it.`}
          confirmLabel={`Delete ${target.name}`}
          tone="danger"
          onConfirm={() => remove.mutate()}
          variant="danger"
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
          <Field label="Config">
            <textarea
              value={config}
              onChange={(e) => setConfig(e.target.value)}
              rows={5}
              spellCheck={false}
              className={`${fieldClass} font-mono`}
              aria-label={`Config of ${target.name}`}
            />
          </Field>
          <div className="flex flex-wrap items-end gap-2">
            <Field label={`New secret (${target.secret ?? "none set"}; empty keeps it)`}>
              <input
                type="password"
                autoComplete="new-password"
                value={secret}
                onChange={(e) => setSecret(e.target.value)}
                className={fieldClass}
                aria-label={`New secret of ${target.name}`}
              />
            </Field>
            <Field label="Attempts">
              <input
                value={attempts}
                onChange={(e) => setAttempts(e.target.value)}
                inputMode="numeric"
                className={`${fieldClass} w-16`}
                aria-label={`Attempts of ${target.name}`}
              />
            </Field>
            <Button type="submit" variant="primary" size="sm" busy={save.isPending}>
              Save
            </Button>
          </div>
        </form>
      )}
      {(formError || error) && <p className="text-xs text-red-700">{formError ?? error?.message}</p>}
    </div>
  );
}
