"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { apiFetch } from "@/components/ui/api-client";
import { Button } from "@/components/ui/button";
import { Field, fieldClass, InlineForm, RoleSelect } from "@/components/ui/form";
import { Table } from "@/components/ui/table";
import { dateTime } from "@/components/ui/format";

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
    mutationFn: () =>
      apiFetch<{ id: number; key: string }>("/api/v1/keys", {
        method: "POST",
        body: JSON.stringify({ name: form.name, role: form.role, project: form.project || undefined }),
      }),
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
          <input
            className={fieldClass}
            value={form.name}
            required
            onChange={(e) => setForm({ ...form, name: e.target.value })}
            placeholder="trainer-ci"
          />
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
        <Button type="submit" variant="primary" busy={create.isPending}>
          Create key
        </Button>
        {create.error && (
          <span role="alert" className="text-red-700">
            {create.error.message}
          </span>
        )}
      </InlineForm>
      {secret && (
        <div role="status" className="rounded-md border border-emerald-300 bg-emerald-50 p-3">
          <div className="mb-1 text-emerald-800">Copy the key now: it is shown only once.</div>
          <code data-testid="new-key" className="select-all break-all font-mono">
            {secret}
          </code>
        </div>
      )}
      <Table
        framed
        rows={keys.data?.keys ?? []}
        rowKey={(k) => k.id}
        empty={keys.data ? "No API keys yet." : false}
        columns={[
          { key: "name", header: "Name", cell: (k) => k.name },
          { key: "role", header: "Role", cell: (k) => k.role },
          { key: "project", header: "Project", cell: (k) => k.project ?? "all" },
          { key: "prefix", header: "Prefix", cell: (k) => `${k.prefix}…`, className: "font-mono text-xs" },
          {
            key: "created",
            header: "Created",
            cell: (k) => dateTime(k.createdAt),
            className: "text-zinc-500 whitespace-nowrap",
          },
          { key: "status", header: "Status", cell: (k) => (k.revokedAt ? <span className="text-zinc-500">revoked</span> : "active") },
          {
            key: "actions",
            header: "Actions",
            hideHeader: true,
            align: "right",
            cell: (k) =>
              !k.revokedAt && (
                <Button
                  variant="danger"
                  size="sm"
                  busy={revoke.isPending && revoke.variables === k.id}
                  onClick={() => {
                    if (window.confirm(`Revoke the key '${k.name}'? Requests with it fail at once; this cannot be undone.`))
                      revoke.mutate(k.id);
                  }}
                >
                  Revoke
                </Button>
              ),
          },
        ]}
      />
      {(keys.error ?? revoke.error) && (
        <p role="alert" className="text-red-700">
          {(keys.error ?? revoke.error)?.message}
        </p>
      )}
    </div>
  );
}
