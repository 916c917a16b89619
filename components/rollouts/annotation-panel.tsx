"use client";
import { useState } from "react";
import { useRouter } from "next/navigation";
import { apiFetch } from "@/components/ui/api-client";
import { Field, fieldClass } from "@/components/ui/form";
import { Button } from "@/components/ui/button";
import { AnnotationItem } from "@/components/annotations/annotation-item";

export interface AnnotationView {
  id: number;
  label: string | null;
  score: number | null;
  note: string | null;
  turn: number | null;
  actor: string;
  createdAt: string;
}

/**
 * A rollout's annotations (each editable and deletable by its author or an admin) and, for reviewers and admins,
 * a small form: label buttons, score, note, optional turn.
 */
export function AnnotationPanel({
  rolloutId,
  slug,
  labels,
  annotations,
  canWrite,
  actor,
  isAdmin = false,
}: {
  rolloutId: number;
  slug: string;
  labels: string[];
  annotations: AnnotationView[];
  canWrite: boolean;
  /** the signed-in user's actor name: their own annotations get Edit and Delete */
  actor?: string;
  /** admins may edit and delete anyone's annotation */
  isAdmin?: boolean;
}) {
  const router = useRouter();
  const [label, setLabel] = useState<string | null>(null);
  const [score, setScore] = useState("");
  const [note, setNote] = useState("");
  const [turn, setTurn] = useState("");
  const [newLabel, setNewLabel] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const run = async (work: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
      router.refresh();
      return true;
    } catch (err) {
      setError((err as Error).message);
      return false;
    } finally {
      setBusy(false);
    }
  };
  const save = () =>
    run(() =>
      apiFetch(`/api/v1/rollouts/${rolloutId}/annotations`, {
        method: "POST",
        body: JSON.stringify({
          label: label ?? undefined,
          score: score === "" ? undefined : Number(score),
          note: note === "" ? undefined : note,
          turn: turn === "" ? undefined : Number(turn),
        }),
      }),
    ).then((ok) => {
      if (ok) {
        setLabel(null);
        setScore("");
        setNote("");
        setTurn("");
      }
    });
  const addLabel = () =>
    run(() =>
      apiFetch(`/api/v1/projects/${encodeURIComponent(slug)}/labels`, { method: "POST", body: JSON.stringify({ name: newLabel }) }),
    ).then((ok) => ok && setNewLabel(""));

  return (
    <div className="text-sm" data-testid="annotations">
      {annotations.length === 0 ? (
        <p className="text-xs text-zinc-500">No annotations yet.</p>
      ) : (
        <ul className="mb-2 space-y-1">
          {annotations.map((a) => (
            <AnnotationItem
              key={a.id}
              rolloutId={rolloutId}
              annotation={a}
              labels={labels}
              canChange={actor !== undefined && (isAdmin || a.actor === actor)}
            />
          ))}
        </ul>
      )}
      {canWrite && (
        <form
          className="flex flex-wrap items-end gap-2 border-t border-zinc-100 pt-2"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <div className="flex flex-wrap gap-1" role="group" aria-label="label">
            {labels.map((l) => (
              <Button key={l} variant="toggle" size="sm" aria-pressed={label === l} onClick={() => setLabel(label === l ? null : l)}>
                {l}
              </Button>
            ))}
            {labels.length === 0 && <span className="text-xs text-zinc-500">No labels in this project yet: add one on the right.</span>}
          </div>
          <Field label="score">
            <input className={`${fieldClass} w-20`} type="number" step="any" value={score} onChange={(e) => setScore(e.target.value)} />
          </Field>
          <Field label="turn (optional)">
            <input className={`${fieldClass} w-20`} type="number" min={0} step={1} value={turn} onChange={(e) => setTurn(e.target.value)} />
          </Field>
          <Field label="note">
            <input className={`${fieldClass} w-72`} value={note} maxLength={10000} onChange={(e) => setNote(e.target.value)} />
          </Field>
          <Button type="submit" variant="primary" size="sm" busy={busy}>
            Annotate
          </Button>
          <span className="ml-auto flex items-end gap-1">
            <Field label="new label">
              <input className={`${fieldClass} w-32`} value={newLabel} maxLength={60} onChange={(e) => setNewLabel(e.target.value)} />
            </Field>
            <Button size="sm" disabled={busy || newLabel.trim() === ""} onClick={() => void addLabel()}>
              Add label
            </Button>
          </span>
        </form>
      )}
      {error && (
        <p role="alert" className="mt-1 text-xs text-red-700">
          {error}
        </p>
      )}
    </div>
  );
}
