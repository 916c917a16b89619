"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { apiFetch } from "@/components/ui/api-client";
import { Field, fieldClass, InlineForm, RoleSelect } from "@/components/ui/form";

interface KeyRow {
  id: number;
  name: string;
  role: string;
  project: string | null;
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
}

/** Admin: list, create (secret shown once) and revoke API keys. */
export function ApiKeys({ projects }: { projects: string[] }) {
  const qc = useQueryClient();
  const keys = useQuery({ queryKey: ["keys"], queryFn: () => apiFetch<{ keys: KeyRow[] }>("/api/v1/keys") });
  const [form, setForm] = useState({ name: "", role: "ingest", project: "" });
  const [secret, setSecret] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: () => apiFetch<{ id: number; key: string }>("/api/v1/keys", { method: "POST", body: JSON.stringify({ name: form.name, role: form.role, project: form.project || undefined }) }),
    onSuccess: (r) => {
      setSecret(r.key);
      setForm({ ...form, name: "" });
      void qc.invalidateQueries({ queryKey: ["keys"] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: number) => apiFetch(`/api/v1/keys/${id}`, { method: "DELETE" }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: ["keys"] }),
  });
  return (
    <div className="space-y-4">
      <InlineForm onSubmit={() => create.mutate()}>
        <Field label="Name">
          <input className={fieldClass} value={form.name} required onChange={(e) => setForm({ ...form, name: e.target.value })} placeholder="trainer-ci" />
        </Field>
        <Field label="Role">
          <RoleSelect value={form.role} onChange={(role) => setForm({ ...form, role })} />
        </Field>
        <Field label="Limited to project">
          <select className={fieldClass} value={form.project} onChange={(e) => setForm({ ...form, project: e.target.value })}>
            <option value="">(all projects)</option>
            {projects.map((p) => (
              <option key={p}>{p}</option>
            ))}
          </select>
        </Field>
        <button className="rounded bg-zinc-900 px-3 py-1.5 text-white disabled:opacity-50" disabled={create.isPending}>
          Create key
        </button>
        {create.error && <span className="text-red-700">{create.error.message}</span>}
      </InlineForm>
      {secret && (
        <div role="status" className="rounded-md border border-emerald-300 bg-emerald-50 p-3">
          <div className="mb-1 text-emerald-800">Copy the key now: it is shown only once.</div>
          <code data-testid="new-key" className="select-all break-all font-mono">
            {secret}
          </code>
        </div>
      )}
      <table className="w-full rounded-md border border-zinc-200 bg-white">
        <thead className="text-left text-xs uppercase tracking-wide text-zinc-500">
          <tr>
            <th className="px-3 py-2">Name</th>
            <th>Role</th>
            <th>Project</th>
            <th>Prefix</th>
            <th>Created</th>
            <th>Status</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {keys.data?.keys.map((k) => (
            <tr key={k.id} className="border-t border-zinc-100">
              <td className="px-3 py-1.5">{k.name}</td>
              <td>{k.role}</td>
              <td>{k.project ?? "all"}</td>
              <td className="font-mono text-xs">{k.prefix}…</td>
              <td className="text-zinc-500">{new Date(k.createdAt).toLocaleString()}</td>
              <td>{k.revokedAt ? <span className="text-zinc-400">revoked</span> : "active"}</td>
              <td className="pr-3 text-right">
                {!k.revokedAt && (
                  <button
                    className="text-red-700 hover:underline"
                    onClick={() => {
                      if (window.confirm(`Revoke the key '${k.name}'? Requests with it fail at once; this cannot be undone.`)) revoke.mutate(k.id);
                    }}
                  >
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {keys.error && <p className="text-red-700">{keys.error.message}</p>}
    </div>
  );
}
