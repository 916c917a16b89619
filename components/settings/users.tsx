"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { apiFetch } from "@/components/ui/api-client";
import { Field, fieldClass, InlineForm, RoleSelect } from "@/components/ui/form";

interface UserRow {
  id: number;
  email: string;
  name: string;
  role: string;
  disabled: boolean;
  createdAt: string;
}

const EMPTY = { email: "", name: "", password: "", role: "reviewer" };

/** Admin: list accounts, add one with a role (the person signs in with the password given here), disable or sign one out everywhere. */
export function Users({ selfId }: { selfId: number }) {
  const qc = useQueryClient();
  const users = useQuery({ queryKey: ["users"], queryFn: () => apiFetch<{ users: UserRow[] }>("/api/v1/users") });
  const [form, setForm] = useState(EMPTY);
  const create = useMutation({
    mutationFn: () => apiFetch("/api/v1/users", { method: "POST", body: JSON.stringify(form) }),
    onSuccess: () => {
      setForm(EMPTY);
      void qc.invalidateQueries({ queryKey: ["users"] });
    },
  });
  const [notice, setNotice] = useState<string | null>(null);
  const setDisabled = useMutation({
    // only the latest action's outcome is shown
    onMutate: () => {
      setNotice(null);
      endSessions.reset();
    },
    mutationFn: (u: { id: number; email: string; disabled: boolean }) =>
      apiFetch<{ sessionsEnded: number }>(`/api/v1/users/${u.id}`, {
        method: "PATCH",
        body: JSON.stringify({ disabled: u.disabled }),
      }).then((r) => ({ ...u, ...r })),
    onSuccess: (r) => {
      setNotice(r.disabled ? `${r.email} is disabled; ${r.sessionsEnded} session(s) ended.` : `${r.email} can sign in again.`);
      void qc.invalidateQueries({ queryKey: ["users"] });
    },
  });
  const endSessions = useMutation({
    onMutate: () => {
      setNotice(null);
      setDisabled.reset();
    },
    mutationFn: (u: { id: number; email: string }) =>
      apiFetch<{ sessionsEnded: number }>(`/api/v1/users/${u.id}/sessions`, { method: "DELETE" }).then((r) => ({ ...u, ...r })),
    onSuccess: (r) => setNotice(`${r.email} is signed out everywhere (${r.sessionsEnded} session(s) ended).`),
  });
  const actionError = setDisabled.error ?? endSessions.error;
  const button = "rounded border border-zinc-300 px-2 py-0.5 text-xs hover:bg-zinc-50 disabled:opacity-50";
  return (
    <div className="space-y-4">
      <InlineForm onSubmit={() => create.mutate()}>
        <Field label="Email">
          <input
            className={fieldClass}
            type="email"
            required
            value={form.email}
            onChange={(e) => setForm({ ...form, email: e.target.value })}
          />
        </Field>
        <Field label="Name">
          <input className={fieldClass} required value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
        </Field>
        <Field label="Initial password (10+ characters)">
          <input
            className={fieldClass}
            type="password"
            autoComplete="new-password"
            required
            minLength={10}
            value={form.password}
            onChange={(e) => setForm({ ...form, password: e.target.value })}
          />
        </Field>
        <Field label="Role">
          <RoleSelect value={form.role} onChange={(role) => setForm({ ...form, role })} />
        </Field>
        <button className="rounded bg-zinc-900 px-3 py-1.5 text-white disabled:opacity-50" disabled={create.isPending}>
          Add account
        </button>
        {create.error && (
          <span role="alert" className="text-red-700">
            {create.error.message}
          </span>
        )}
      </InlineForm>
      <table className="w-full rounded-md border border-zinc-200 bg-white" data-testid="users-table">
        <thead className="text-left text-xs uppercase tracking-wide text-zinc-500">
          <tr>
            <th className="px-3 py-2">Name</th>
            <th>Email</th>
            <th>Role</th>
            <th>Created</th>
            <th>Status</th>
            <th className="sr-only">Actions</th>
          </tr>
        </thead>
        <tbody>
          {users.data?.users.map((u) => (
            <tr key={u.id} className="border-t border-zinc-100" data-testid="user-row">
              <td className="px-3 py-1.5">{u.name}</td>
              <td>{u.email}</td>
              <td>{u.role}</td>
              <td className="text-zinc-500">{new Date(u.createdAt).toLocaleString()}</td>
              <td className={u.disabled ? "text-red-700" : "text-zinc-600"}>{u.disabled ? "disabled" : "active"}</td>
              <td className="space-x-2 py-1.5 pr-3 text-right">
                {u.id !== selfId && (
                  <>
                    <button
                      type="button"
                      className={button}
                      disabled={setDisabled.isPending}
                      onClick={() => setDisabled.mutate({ id: u.id, email: u.email, disabled: !u.disabled })}
                    >
                      {u.disabled ? "Enable" : "Disable"}
                    </button>
                    {!u.disabled && (
                      <button
                        type="button"
                        className={button}
                        disabled={endSessions.isPending}
                        onClick={() => endSessions.mutate({ id: u.id, email: u.email })}
                      >
                        End sessions
                      </button>
                    )}
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {notice && !actionError && (
        <p role="status" className="text-zinc-700">
          {notice}
        </p>
      )}
      {actionError && (
        <p role="alert" className="text-red-700">
          {actionError.message}
        </p>
      )}
      {users.error && <p className="text-red-700">{users.error.message}</p>}
    </div>
  );
}
