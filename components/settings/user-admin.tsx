"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { apiFetch } from "@/components/ui/api-client";
import { Button } from "@/components/ui/button";
import { fieldClass, RoleSelect } from "@/components/ui/form";

function usePatchUser(id: number, onDone: (r: { sessionsEnded: number }) => void) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: Record<string, unknown>) =>
      apiFetch<{ sessionsEnded: number }>(`/api/v1/users/${id}`, { method: "PATCH", body: JSON.stringify(body) }),
    onSuccess: (r) => {
      onDone(r);
      void qc.invalidateQueries({ queryKey: ["users"] });
    },
  });
}

/** An account's role, changed in place (admins; the account's sessions end so the new role applies at once). */
export function UserRole({ id, email, role }: { id: number; email: string; role: string }) {
  const [note, setNote] = useState<string | null>(null);
  const patch = usePatchUser(id, (r) => setNote(`Role changed; ${r.sessionsEnded} session(s) ended.`));
  return (
    <span className="inline-flex flex-col">
      <RoleSelect aria-label={`Role of ${email}`} value={role} onChange={(next) => next !== role && patch.mutate({ role: next })} />
      {note && <span className="text-xs text-green-700">{note}</span>}
      {patch.error && (
        <span role="alert" className="text-xs text-red-700">
          {(patch.error as Error).message}
        </span>
      )}
    </span>
  );
}

/** Set a new password for an account (admins): typed here, never shown again; its sessions end. */
export function PasswordReset({ id, email }: { id: number; email: string }) {
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState("");
  const [note, setNote] = useState<string | null>(null);
  const patch = usePatchUser(id, (r) => {
    setPassword("");
    setOpen(false);
    setNote(`New password set for ${email}; ${r.sessionsEnded} session(s) ended.`);
  });
  if (!open) {
    return (
      <span className="inline-flex flex-col items-end">
        <Button size="sm" onClick={() => (setOpen(true), setNote(null))}>
          Reset password
        </Button>
        {note && (
          <span role="status" className="text-xs text-green-700">
            {note}
          </span>
        )}
      </span>
    );
  }
  return (
    <form
      className="inline-flex flex-wrap items-center gap-1"
      onSubmit={(e) => {
        e.preventDefault();
        patch.mutate({ password });
      }}
    >
      <input
        type="password"
        autoComplete="new-password"
        minLength={10}
        required
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        className={`${fieldClass} w-40 text-xs`}
        aria-label={`New password for ${email}`}
        placeholder="10+ characters"
      />
      <Button type="submit" size="sm" busy={patch.isPending}>
        Set
      </Button>
      <Button size="sm" onClick={() => setOpen(false)}>
        Cancel
      </Button>
      {patch.error && (
        <span role="alert" className="text-xs text-red-700">
          {(patch.error as Error).message}
        </span>
      )}
    </form>
  );
}
