"use client";

import { useState } from "react";
import { useRouter } from "next/navigation";
import { apiFetch } from "@/components/ui/api-client";
import { Button } from "@/components/ui/button";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { Field, fieldClass } from "@/components/ui/form";
import { dateTime } from "@/components/ui/format";
import type { AnnotationView } from "@/components/rollouts/annotation-panel";

/** One annotation as a list item; its author (or an admin) may edit it in place or delete it. */
export function AnnotationItem({
  rolloutId,
  annotation: a,
  labels,
  canChange,
}: {
  rolloutId: number;
  annotation: AnnotationView;
  labels: string[];
  canChange: boolean;
}) {
  const router = useRouter();
  const [editing, setEditing] = useState(false);
  const [label, setLabel] = useState(a.label ?? "");
  const [score, setScore] = useState(a.score === null ? "" : String(a.score));
  const [note, setNote] = useState(a.note ?? "");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const url = `/api/v1/rollouts/${rolloutId}/annotations/${a.id}`;

  async function run(init: RequestInit) {
    setBusy(true);
    setError(null);
    try {
      await apiFetch(url, init);
      setEditing(false);
      router.refresh();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  }
  const save = () =>
    run({
      method: "PATCH",
      body: JSON.stringify({
        label: label === "" ? null : label,
        score: score === "" ? null : Number(score),
        note: note.trim() === "" ? null : note,
      }),
    });

  if (editing)
    return (
      <li data-testid="annotation">
        <form
          className="flex flex-wrap items-end gap-2 rounded border border-zinc-200 p-2"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <Field label="label">
            <select className={fieldClass} value={label} onChange={(e) => setLabel(e.target.value)}>
              <option value="">(none)</option>
              {[...new Set([...labels, ...(a.label ? [a.label] : [])])].map((l) => (
                <option key={l} value={l}>
                  {l}
                </option>
              ))}
            </select>
          </Field>
          <Field label="score">
            <input className={`${fieldClass} w-20`} type="number" step="any" value={score} onChange={(e) => setScore(e.target.value)} />
          </Field>
          <Field label="note" className="min-w-0 flex-1">
            <input className={`${fieldClass} w-full`} value={note} maxLength={10000} onChange={(e) => setNote(e.target.value)} />
          </Field>
          <Button type="submit" size="sm" variant="primary" busy={busy}>
            Save
          </Button>
          <Button size="sm" variant="ghost" onClick={() => setEditing(false)}>
            Cancel
          </Button>
          {error && (
            <p role="alert" className="w-full text-xs text-red-700">
              {error}
            </p>
          )}
        </form>
      </li>
    );
  return (
    <li className="flex flex-wrap items-baseline gap-2" data-testid="annotation">
      {a.label && <span className="rounded bg-indigo-100 px-1.5 py-0.5 text-xs text-indigo-800">{a.label}</span>}
      {a.score !== null && <span className="font-mono text-xs">score {a.score}</span>}
      {a.turn !== null && (
        <a href={`#turn-${a.turn}`} className="text-xs text-blue-700 hover:underline">
          turn {a.turn}
        </a>
      )}
      {a.note && <span className="whitespace-pre-wrap break-words">{a.note}</span>}
      <span className="ml-auto text-xs text-zinc-500">
        {a.actor} · {dateTime(a.createdAt)}
      </span>
      {canChange && (
        <span className="flex gap-1">
          <Button size="xs" variant="ghost" onClick={() => setEditing(true)} aria-label={`Edit annotation ${a.id}`}>
            Edit
          </Button>
          <ConfirmButton
            size="xs"
            variant="ghost"
            tone="danger"
            confirmLabel="Delete"
            message={`Delete this annotation${a.label ? ` (${a.label})` : ""}? The audit log keeps what it said.`}
            onConfirm={() => void run({ method: "DELETE" })}
            testId="annotation-delete"
          >
            Delete
          </ConfirmButton>
        </span>
      )}
      {error && (
        <p role="alert" className="w-full text-xs text-red-700">
          {error}
        </p>
      )}
    </li>
  );
}
