"use client";

import { useState } from "react";
import { apiFetch } from "@/components/ui/api-client";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { dateTime } from "@/components/ui/format";

export interface QueueLock {
  rolloutId: number;
  owner: string;
  /** ISO time the lock runs out unless its holder renews it */
  expiresAt: string;
}

/**
 * The queue's rollouts other reviewers hold right now, with who and until when; an admin may break a lock
 * (a reviewer who walked away) after a confirmation naming its holder, which frees the rollout for the queue.
 */
export function QueueLocks({ slug, locks: initial, canBreak }: { slug: string; locks: QueueLock[]; canBreak: boolean }) {
  // a broken lock leaves the list here; the page keys this component by its locks, so fresh ones replace the list
  const [locks, setLocks] = useState(initial);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<number | null>(null);

  async function breakLock(lock: QueueLock) {
    setBusy(lock.rolloutId);
    setError(null);
    setNotice(null);
    try {
      await apiFetch(`/api/v1/projects/${encodeURIComponent(slug)}/annotation-queue/locks/${lock.rolloutId}/break`, { method: "POST" });
      setNotice(`Broke ${lock.owner}'s lock: rollout ${lock.rolloutId} is free for the queue.`);
      setLocks((current) => current.filter((l) => l.rolloutId !== lock.rolloutId));
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(null);
    }
  }

  return (
    <div className="space-y-2 text-sm" data-testid="queue-locks">
      <ul className="divide-y divide-zinc-100">
        {locks.map((lock) => (
          <li key={lock.rolloutId} className="flex flex-wrap items-center gap-2 py-1" data-testid="queue-lock-row">
            <span className="num font-mono">rollout {lock.rolloutId}</span>
            <span className="text-zinc-600">
              held by <span className="font-medium text-zinc-800">{lock.owner}</span> until {dateTime(lock.expiresAt)}
            </span>
            {canBreak && (
              <ConfirmButton
                className="ml-auto"
                tone="danger"
                confirmLabel="Break the lock"
                disabled={busy !== null}
                testId="queue-break-lock"
                onConfirm={() => void breakLock(lock)}
                message={
                  <>
                    Break <strong>{lock.owner}</strong>&apos;s lock on rollout {lock.rolloutId}? They may still be reviewing it; the rollout
                    becomes free for the next reviewer of the queue. The audit log records it.
                  </>
                }
              >
                Break lock
              </ConfirmButton>
            )}
          </li>
        ))}
      </ul>
      {notice && (
        <p className="text-green-800" role="status">
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
