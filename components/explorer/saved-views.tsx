"use client";
/** The user's saved explorer views: open one (a link to its query), save the current filters under a name, delete one. */
import Link from "next/link";
import { useState } from "react";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { Button } from "@/components/ui/button";
import { Field, fieldClass } from "@/components/ui/form";
import { apiFetch } from "@/components/ui/api-client";

export interface SavedView {
  id: number;
  name: string;
  query: string;
}

export function SavedViews({ slug, views }: { slug: string; views: SavedView[] }) {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const [name, setName] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const api = `/api/v1/projects/${encodeURIComponent(slug)}/views`;
  const run = async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
      router.refresh();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="rounded-md border border-zinc-200 bg-white p-3 text-sm" data-testid="saved-views" aria-label="Saved views">
      <h2 className="mb-2 text-xs font-medium tracking-wide text-zinc-500 uppercase">Your saved views</h2>
      {views.length === 0 ? (
        <p className="mb-2 text-xs text-zinc-500">None yet: set filters, name the view and save it.</p>
      ) : (
        <ul className="mb-2 flex flex-wrap gap-2">
          {views.map((v) => (
            <li key={v.id} className="flex items-center gap-1 rounded border border-zinc-200 px-2 py-0.5" data-testid="saved-view">
              <Link href={`${pathname}${v.query ? `?${v.query}` : ""}`} className="text-blue-700 hover:underline">
                {v.name}
              </Link>
              <Button
                variant="ghost"
                size="xs"
                aria-label={`delete view ${v.name}`}
                disabled={busy}
                onClick={() => run(() => apiFetch(`${api}/${v.id}`, { method: "DELETE" }))}
              >
                ×
              </Button>
            </li>
          ))}
        </ul>
      )}
      <form
        className="flex flex-wrap items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          const query = new URLSearchParams(params.toString());
          query.delete("cursor");
          void run(() =>
            apiFetch(api, { method: "POST", body: JSON.stringify({ name, query: query.toString() }) }).then(() => setName("")),
          );
        }}
      >
        <Field label="view name" error={error}>
          <input className={fieldClass} value={name} onChange={(e) => setName(e.target.value)} maxLength={80} required />
        </Field>
        <Button type="submit" size="sm" busy={busy}>
          Save current filters
        </Button>
      </form>
    </section>
  );
}
