"use client";

import { useRouter } from "next/navigation";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { apiFetch } from "@/components/ui/api-client";
import { Button } from "@/components/ui/button";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { Field, fieldClass, InlineForm } from "@/components/ui/form";

const EMPTY = { slug: "", name: "", family: "", successThreshold: "1" };

/** Admin: create a project (slug, name, family, success threshold); opens it on success. */
export function NewProjectForm({ families }: { families: string[] }) {
  const router = useRouter();
  const [form, setForm] = useState({ ...EMPTY, family: families[0] ?? "" });
  const create = useMutation({
    mutationFn: () =>
      apiFetch<{ slug: string }>("/api/v1/projects", {
        method: "POST",
        body: JSON.stringify({
          slug: form.slug.trim(),
          name: form.name,
          family: form.family,
          successThreshold: Number(form.successThreshold),
        }),
      }),
    onSuccess: (p) => {
      setForm({ ...EMPTY, family: families[0] ?? "" });
      router.push(`/projects/${encodeURIComponent(p.slug)}`);
    },
  });
  const set = (k: keyof typeof EMPTY) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [k]: e.target.value }));
  return (
    <div data-testid="new-project">
      <InlineForm onSubmit={() => create.mutate()}>
        <Field label="Slug (in URLs)">
          <input
            className={fieldClass}
            value={form.slug}
            onChange={set("slug")}
            required
            placeholder="tb2-swerl"
            aria-label="Project slug"
          />
        </Field>
        <Field label="Name">
          <input className={fieldClass} value={form.name} onChange={set("name")} required aria-label="Project name" />
        </Field>
        <Field label="Family">
          <select className={fieldClass} value={form.family} onChange={set("family")} aria-label="Family">
            {families.map((f) => (
              <option key={f}>{f}</option>
            ))}
          </select>
        </Field>
        <Field label="Success threshold (reward ≥)">
          <input
            className={`${fieldClass} w-24`}
            value={form.successThreshold}
            onChange={set("successThreshold")}
            inputMode="decimal"
            aria-label="Success threshold"
          />
        </Field>
        <Button type="submit" variant="primary" busy={create.isPending}>
          Create project
        </Button>
      </InlineForm>
      {create.error && (
        <p className="mt-1 text-sm text-red-700" role="alert">
          {(create.error as Error).message}
        </p>
      )}
    </div>
  );
}

export interface ProjectSettingsValue {
  slug: string;
  name: string;
  successThreshold: number;
  defaultPolicy: string | null;
  archivedAt: string | null;
}

/** Admin: rename, success threshold, default policy, archive, delete (each confirmed where it is wide). */
export function ProjectSettingsForm({ project, policies }: { project: ProjectSettingsValue; policies: string[] }) {
  const router = useRouter();
  const [name, setName] = useState(project.name);
  const [threshold, setThreshold] = useState(String(project.successThreshold));
  const [policy, setPolicy] = useState(project.defaultPolicy ?? "");
  const [saved, setSaved] = useState<string | null>(null);
  const url = `/api/v1/projects/${encodeURIComponent(project.slug)}`;
  const patch = useMutation({
    mutationFn: (body: Record<string, unknown>) => apiFetch<ProjectSettingsValue>(url, { method: "PATCH", body: JSON.stringify(body) }),
    onMutate: () => setSaved(null),
    onSuccess: (p, body) => {
      setSaved("archived" in body ? (p.archivedAt ? "Archived." : "Unarchived.") : "Saved.");
      router.refresh();
    },
  });
  const remove = useMutation({
    mutationFn: () => apiFetch(url, { method: "DELETE" }),
    onSuccess: () => router.push("/"),
  });
  const error = (patch.error ?? remove.error) as Error | null;
  return (
    <div className="space-y-2" data-testid="project-settings">
      <InlineForm onSubmit={() => patch.mutate({ name, successThreshold: Number(threshold), defaultPolicy: policy || null })}>
        <Field label="Name">
          <input className={fieldClass} value={name} onChange={(e) => setName(e.target.value)} required aria-label="Project name" />
        </Field>
        <Field label="Success threshold (reward ≥)">
          <input
            className={`${fieldClass} w-24`}
            value={threshold}
            onChange={(e) => setThreshold(e.target.value)}
            inputMode="decimal"
            aria-label="Success threshold"
          />
        </Field>
        <Field label="Default policy (dashboards open on it)">
          <select className={fieldClass} value={policy} onChange={(e) => setPolicy(e.target.value)} aria-label="Default policy">
            <option value="">all policies</option>
            {policies.map((p) => (
              <option key={p}>{p}</option>
            ))}
          </select>
        </Field>
        <Button type="submit" variant="primary" busy={patch.isPending}>
          Save settings
        </Button>
      </InlineForm>
      <div className="flex flex-wrap items-center gap-2 text-sm">
        {project.archivedAt ? (
          <Button onClick={() => patch.mutate({ archived: false })} busy={patch.isPending}>
            Unarchive
          </Button>
        ) : (
          <ConfirmButton
            message={`Archive ${project.slug}? It leaves the projects list (shown under “archived”); nothing is deleted.`}
            confirmLabel="Archive"
            onConfirm={() => patch.mutate({ archived: true })}
            size="md"
            testId="archive-project"
          >
            Archive
          </ConfirmButton>
        )}
        <ConfirmButton
          message={`Delete ${project.slug} with all its generations, rollouts, targets and dispatches? This cannot be undone; the audit keeps the event.`}
          confirmLabel={`Delete ${project.slug}`}
          tone="danger"
          onConfirm={() => remove.mutate()}
          variant="danger"
          size="md"
          testId="delete-project"
        >
          Delete project…
        </ConfirmButton>
        {saved && (
          <span className="text-green-700" role="status">
            {saved}
          </span>
        )}
        {error && (
          <span className="text-red-700" role="alert">
            {error.message}
          </span>
        )}
      </div>
    </div>
  );
}
