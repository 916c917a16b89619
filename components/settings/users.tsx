"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { apiFetch } from "@/components/ui/api-client";
import { Button } from "@/components/ui/button";
import { Field, fieldClass, InlineForm, RoleSelect } from "@/components/ui/form";
import { Table } from "@/components/ui/table";
import { PasswordReset, UserRole } from "./user-admin";
import { dateTime } from "@/components/ui/format";

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
        <Field label="Initial password" help="10+ characters; the person signs in with it.">
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
        <Button type="submit" variant="primary" busy={create.isPending}>
          Add account
        </Button>
        {create.error && (
          <span role="alert" className="text-red-700">
            {create.error.message}
          </span>
        )}
      </InlineForm>
      <Table
        framed
        testId="users-table"
        rows={users.data?.users ?? []}
        rowKey={(u) => u.id}
        rowProps={() => ({ "data-testid": "user-row" })}
        empty={users.data ? "No accounts." : false}
        columns={[
          { key: "name", header: "Name", cell: (u) => u.name },
          { key: "email", header: "Email", cell: (u) => u.email },
          { key: "role", header: "Role", cell: (u) => (u.id !== selfId ? <UserRole id={u.id} email={u.email} role={u.role} /> : u.role) },
          {
            key: "created",
            header: "Created",
            cell: (u) => dateTime(u.createdAt),
            className: "text-zinc-500 whitespace-nowrap",
          },
          {
            key: "status",
            header: "Status",
            cell: (u) => <span className={u.disabled ? "text-red-700" : "text-zinc-600"}>{u.disabled ? "disabled" : "active"}</span>,
          },
          {
            key: "actions",
            header: "Actions",
            hideHeader: true,
            align: "right",
            className: "space-x-2 whitespace-nowrap",
            cell: (u) =>
              u.id !== selfId && (
                <>
                  <Button
                    size="sm"
                    disabled={setDisabled.isPending}
                    onClick={() => setDisabled.mutate({ id: u.id, email: u.email, disabled: !u.disabled })}
                  >
                    {u.disabled ? "Enable" : "Disable"}
                  </Button>
                  <PasswordReset id={u.id} email={u.email} />
                  {!u.disabled && (
                    <Button size="sm" disabled={endSessions.isPending} onClick={() => endSessions.mutate({ id: u.id, email: u.email })}>
                      End sessions
                    </Button>
                  )}
                </>
              ),
          },
        ]}
      />
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
