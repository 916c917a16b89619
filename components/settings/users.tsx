"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { apiFetch } from "@/components/ui/api-client";

interface UserRow {
  id: number;
  email: string;
  name: string;
  role: string;
  createdAt: string;
}

const EMPTY = { email: "", name: "", password: "", role: "reviewer" };

/** Admin: list accounts and add one with a role (the person signs in with the password given here). */
export function Users() {
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
  const field = "rounded border border-zinc-300 px-2 py-1";
  return (
    <div className="space-y-4">
      <form
        className="flex flex-wrap items-end gap-2 rounded-md border border-zinc-200 bg-white p-3"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <label className="flex flex-col">
          <span className="text-xs text-zinc-500">Email</span>
          <input className={field} type="email" required value={form.email} onChange={(e) => setForm({ ...form, email: e.target.value })} />
        </label>
        <label className="flex flex-col">
          <span className="text-xs text-zinc-500">Name</span>
          <input className={field} required value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
        </label>
        <label className="flex flex-col">
          <span className="text-xs text-zinc-500">Initial password (10+ characters)</span>
          <input className={field} type="password" autoComplete="new-password" required minLength={10} value={form.password} onChange={(e) => setForm({ ...form, password: e.target.value })} />
        </label>
        <label className="flex flex-col">
          <span className="text-xs text-zinc-500">Role</span>
          <select className={field} value={form.role} onChange={(e) => setForm({ ...form, role: e.target.value })}>
            {["admin", "reviewer", "ingest", "viewer"].map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
        <button className="rounded bg-zinc-900 px-3 py-1.5 text-white disabled:opacity-50" disabled={create.isPending}>
          Add account
        </button>
        {create.error && (
          <span role="alert" className="text-red-700">
            {create.error.message}
          </span>
        )}
      </form>
      <table className="w-full rounded-md border border-zinc-200 bg-white" data-testid="users-table">
        <thead className="text-left text-xs uppercase tracking-wide text-zinc-500">
          <tr>
            <th className="px-3 py-2">Name</th>
            <th>Email</th>
            <th>Role</th>
            <th>Created</th>
          </tr>
        </thead>
        <tbody>
          {users.data?.users.map((u) => (
            <tr key={u.id} className="border-t border-zinc-100">
              <td className="px-3 py-1.5">{u.name}</td>
              <td>{u.email}</td>
              <td>{u.role}</td>
              <td className="text-zinc-500">{new Date(u.createdAt).toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {users.error && <p className="text-red-700">{users.error.message}</p>}
    </div>
  );
}
