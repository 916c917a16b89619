"use client";

import { useEffect, useState } from "react";
import { useRouter } from "next/navigation";
import { apiFetch } from "@/components/ui/api-client";
import { Button } from "@/components/ui/button";
import { Field, fieldClass } from "@/components/ui/form";
import { useShortcuts } from "@/components/ui/shortcuts";
import { count } from "@/components/ui/format";

interface ClaimResult {
  rolloutId: number | null;
  expiresAt: string | null;
  skipped: { rolloutId: number; owner: string }[];
}

/** How often the page renews its lock (the lock lives LOCK_TTL_SECONDS, ten minutes). */
const RENEW_MS = 60_000;

/**
 * The lock this tab holds, kept outside the component: moving to another rollout may mount a fresh copy of
 * the controls (a new page segment), which adopts the lock instead of the old copy letting it go on unmount.
 */
const tabLock: { id: number | null; releaseTimer: ReturnType<typeof setTimeout> | null } = { id: null, releaseTimer: null };

/**
 * The annotation queue's controls: takes the lock on the rollout shown (or the next free one), n / p
 * move through the queue (letting go of the lock left), 1-9 apply the project's labels, a score and a
 * note are saved with Enter; the lock is renewed every minute and let go when the reviewer leaves.
 */
export function AnnotationQueueControls({
  slug,
  queue,
  annotated,
  at,
  filterQuery,
  labels,
  canWrite,
}: {
  slug: string;
  /** the queue's rollout ids in order */
  queue: number[];
  annotated: number[];
  /** the rollout shown, null before the first claim */
  at: number | null;
  /** the explorer's filter as a query string (without `at`) */
  filterQuery: string;
  labels: string[];
  canWrite: boolean;
}) {
  const router = useRouter();
  const api = `/api/v1/projects/${encodeURIComponent(slug)}/annotation-queue`;
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [score, setScore] = useState("");
  const [note, setNote] = useState("");
  const [applied, setApplied] = useState<string | null>(null);
  const [locked, setLocked] = useState<number | null>(() => tabLock.id);

  const hrefOf = (id: number) => `/projects/${encodeURIComponent(slug)}/rollouts/queue?${filterQuery ? `${filterQuery}&` : ""}at=${id}`;
  const skippedNote = (r: ClaimResult) =>
    r.skipped.length === 0 ? null : `Skipped ${r.skipped.map((s) => `rollout ${s.rolloutId} (being reviewed by ${s.owner})`).join(", ")}.`;

  const requestClaim = (candidates: number[], release?: number) =>
    apiFetch<ClaimResult>(`${api}/claim`, { method: "POST", body: JSON.stringify({ candidates, release }) }).then((r) => {
      tabLock.id = r.rolloutId;
      return r;
    });
  async function claim(candidates: number[], release?: number): Promise<ClaimResult> {
    const r = await requestClaim(candidates, release);
    setLocked(r.rolloutId);
    return r;
  }

  // Take the lock on what is shown; when another reviewer holds it, move on to the next free rollout.
  useEffect(() => {
    if (queue.length === 0) return;
    // a fresh queue starts at its first rollout nobody has annotated yet
    const firstOpen = Math.max(
      queue.findIndex((id) => !annotated.includes(id)),
      0,
    );
    if (!canWrite) {
      if (at === null) router.replace(hrefOf(queue[firstOpen]));
      return;
    }
    if (at !== null && tabLock.id === at) return;
    const from = at !== null ? Math.max(queue.indexOf(at), 0) : firstOpen;
    const candidates = [...queue.slice(from), ...queue.slice(0, from)];
    let cancelled = false;
    requestClaim(candidates, tabLock.id ?? undefined).then(
      (r) => {
        setLocked(r.rolloutId);
        if (cancelled) return;
        setNotice(r.rolloutId === null ? "Every rollout of this queue is being reviewed by someone else." : skippedNote(r));
        if (r.rolloutId !== null && r.rolloutId !== at) router.replace(hrefOf(r.rolloutId));
      },
      (err: Error) => !cancelled && setError(err.message),
    );
    return () => {
      cancelled = true;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- claims once per rollout shown
  }, [at, canWrite, queue.join(",")]);

  // Renew the lock while the reviewer is on it; let go of it on leaving the page.
  useEffect(() => {
    if (!canWrite) return;
    // a copy of the controls unmounted just now: this one takes its lock over
    if (tabLock.releaseTimer !== null) clearTimeout(tabLock.releaseTimer);
    tabLock.releaseTimer = null;
    const renew = setInterval(() => {
      const id = tabLock.id;
      if (id === null) return;
      claim([id]).then(
        (r) => r.rolloutId === null && setNotice(`Your lock on rollout ${id} ran out and another reviewer took it over; move on with n.`),
        (err: Error) => setError(err.message),
      );
    }, RENEW_MS);
    const release = () => {
      const id = tabLock.id;
      if (id === null) return;
      tabLock.id = null;
      // keepalive: the request outlives the page being closed
      void fetch(`${api}/locks/${id}`, { method: "DELETE", keepalive: true }).catch(() => undefined);
    };
    window.addEventListener("pagehide", release);
    return () => {
      clearInterval(renew);
      window.removeEventListener("pagehide", release);
      // let go unless a fresh copy (the next rollout's page) adopts the lock at once
      tabLock.releaseTimer = setTimeout(release, 1000);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per page
  }, [canWrite]);

  const position = at === null ? -1 : queue.indexOf(at);

  async function move(delta: 1 | -1) {
    if (position < 0 || busy) return;
    const candidates = delta === 1 ? queue.slice(position + 1) : queue.slice(0, position).reverse();
    if (candidates.length === 0) {
      setNotice(delta === 1 ? "This is the last rollout of the queue." : "This is the first rollout of the queue.");
      return;
    }
    setError(null);
    if (!canWrite) {
      router.push(hrefOf(candidates[0]));
      return;
    }
    setBusy(true);
    try {
      const r = await claim(candidates, at ?? undefined);
      if (r.rolloutId === null) {
        setNotice(`No free rollout ${delta === 1 ? "after" : "before"} this one: the others are being reviewed.`);
        // the claim let go of this one: take it back
        if (at !== null) await claim([at]);
        return;
      }
      setNotice(skippedNote(r));
      setApplied(null);
      setScore("");
      setNote("");
      router.push(hrefOf(r.rolloutId));
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  }

  async function annotate(body: { label?: string; score?: number; note?: string }) {
    if (at === null || !canWrite) return false;
    setBusy(true);
    setError(null);
    try {
      await apiFetch(`/api/v1/rollouts/${at}/annotations`, { method: "POST", body: JSON.stringify(body) });
      router.refresh();
      return true;
    } catch (err) {
      setError((err as Error).message);
      return false;
    } finally {
      setBusy(false);
    }
  }
  const applyLabel = (label: string) => annotate({ label }).then((ok) => ok && setApplied(label));

  const keys: Record<string, () => void> = { n: () => void move(1), p: () => void move(-1) };
  labels.slice(0, 9).forEach((label, i) => {
    keys[String(i + 1)] = () => void applyLabel(label);
  });
  useShortcuts(keys);

  return (
    <div className="space-y-2 text-sm" data-testid="queue-controls">
      <div className="flex flex-wrap items-center gap-2">
        <Button size="sm" onClick={() => void move(-1)} disabled={position <= 0} busy={busy} title="Previous (p)">
          ← Previous <kbd className="font-mono text-xs text-zinc-500">p</kbd>
        </Button>
        <Button size="sm" onClick={() => void move(1)} disabled={position < 0 || position >= queue.length - 1} busy={busy} title="Next (n)">
          Next <kbd className="font-mono text-xs text-zinc-500">n</kbd> →
        </Button>
        <span className="num text-zinc-600" data-testid="queue-position">
          {position >= 0 ? `${count(position + 1)} of ${count(queue.length)}` : ""}
        </span>
        {canWrite && locked !== null && locked === at && (
          <span className="text-xs text-green-800" data-testid="queue-lock">
            locked to you while you review it
          </span>
        )}
      </div>
      {canWrite && (
        <>
          <div className="flex flex-wrap items-center gap-1" role="group" aria-label="Labels (keys 1-9)">
            {labels.slice(0, 9).map((label, i) => (
              <Button
                key={label}
                size="sm"
                variant={applied === label ? "primary" : "secondary"}
                onClick={() => void applyLabel(label)}
                disabled={at === null}
                data-testid="queue-label"
              >
                <kbd className="font-mono text-xs opacity-70">{i + 1}</kbd> {label}
              </Button>
            ))}
            {labels.length === 0 && (
              <span className="text-xs text-zinc-500">
                This project has no labels yet: add some on a rollout page or with POST …/labels.
              </span>
            )}
            {labels.length > 9 && <span className="text-xs text-zinc-500">(labels past the ninth have no key)</span>}
          </div>
          <form
            className="flex flex-wrap items-end gap-2"
            onSubmit={(e) => {
              e.preventDefault();
              void annotate({ score: score === "" ? undefined : Number(score), note: note.trim() === "" ? undefined : note }).then((ok) => {
                if (ok) {
                  setScore("");
                  setNote("");
                }
              });
            }}
          >
            <Field label="score">
              <input className={`${fieldClass} w-24`} type="number" step="any" value={score} onChange={(e) => setScore(e.target.value)} />
            </Field>
            <Field label="note" className="min-w-0 flex-1">
              <input className={`${fieldClass} w-full`} value={note} maxLength={10000} onChange={(e) => setNote(e.target.value)} />
            </Field>
            <Button type="submit" size="sm" variant="primary" busy={busy} disabled={at === null || (score === "" && note.trim() === "")}>
              Save score / note
            </Button>
          </form>
        </>
      )}
      {notice && (
        <p className="rounded border border-amber-300 bg-amber-50 p-2 text-amber-900" data-testid="queue-notice" role="status">
          {notice}
        </p>
      )}
      {error && (
        <p role="alert" className="text-red-700">
          {error}
        </p>
      )}
    </div>
  );
}
