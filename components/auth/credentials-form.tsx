"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { safeNextPath } from "@/lib/auth/next-path";
import { Button } from "@/components/ui/button";
import { Field, fieldClass } from "@/components/ui/form";
import { useHydrated } from "@/components/ui/use-hydrated";

interface ApiError {
  error?: { message?: string; details?: { path?: string; message: string }[] };
}

/** The sign-in and first-run forms: posts to a route handler, shows its error next to the field. */
export function CredentialsForm({ mode, next = "/" }: { mode: "setup" | "signin"; next?: string }) {
  const router = useRouter();
  const [fields, setFields] = useState({ email: "", name: "", password: "" });
  const mutation = useMutation({
    mutationFn: async () => {
      const body = mode === "setup" ? fields : { email: fields.email, password: fields.password };
      const res = await fetch(mode === "setup" ? "/api/auth/setup" : "/api/auth/signin", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (!res.ok) {
        const data = (await res.json().catch(() => ({}))) as ApiError;
        throw new Error(data.error?.message ?? `Request failed (${res.status})`);
      }
    },
    onSuccess: () => {
      router.push(safeNextPath(next));
      router.refresh();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    mutation.mutate();
  };
  const hydrated = useHydrated();
  const input = `${fieldClass} w-full py-1.5`;
  return (
    // method="post": a submit before the page listens (a fast Enter, a password manager's auto-submit) goes natively, and a
    // GET would put the password in the address; the button waits for the page besides
    <form method="post" onSubmit={submit} className="space-y-3">
      <Field label="Email">
        <input
          className={input}
          name="email"
          type="email"
          autoComplete="username"
          required
          value={fields.email}
          onChange={(e) => setFields({ ...fields, email: e.target.value })}
          autoFocus
        />
      </Field>
      {mode === "setup" && (
        <Field label="Name">
          <input
            className={input}
            name="name"
            required
            value={fields.name}
            onChange={(e) => setFields({ ...fields, name: e.target.value })}
          />
        </Field>
      )}
      <Field label="Password" help={mode === "setup" ? "10 characters or more" : undefined}>
        <input
          className={input}
          name="password"
          type="password"
          autoComplete={mode === "setup" ? "new-password" : "current-password"}
          required
          minLength={mode === "setup" ? 10 : 1}
          value={fields.password}
          onChange={(e) => setFields({ ...fields, password: e.target.value })}
        />
      </Field>
      {mutation.error && (
        <p role="alert" className="rounded bg-red-50 px-2 py-1.5 text-red-700">
          {mutation.error.message}
        </p>
      )}
      <Button type="submit" variant="primary" className="w-full" disabled={!hydrated || mutation.isPending}>
        {mode === "setup" ? "Create admin account" : mutation.isPending ? "Signing in…" : "Sign in"}
      </Button>
    </form>
  );
}
