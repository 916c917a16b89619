"use client";

import Link from "next/link";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { Field, fieldClass } from "@/components/ui/form";
import { Button } from "@/components/ui/button";
import { apiFetch } from "@/components/ui/api-client";
import { Panel } from "@/components/ui/shell";
import type { ProposalData } from "./proposal-view";
import { CommentForm } from "./comment-form";
import { dateTime } from "@/components/ui/format";

/** Proposal-level comments and materializing the approved items into the next generation. */
export function ProposalFooter({ proposal, canReview }: { proposal: ProposalData; canReview: boolean }) {
  const queryClient = useQueryClient();
  const slug = proposal.project ?? "";
  const [steps, setSteps] = useState("");
  const [mix, setMix] = useState("");
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["proposal", proposal.id] });
  const comment = useMutation({
    mutationFn: (body: string) => apiFetch(`/api/v1/proposals/${proposal.id}/comments`, { method: "POST", body: JSON.stringify({ body }) }),
    onSuccess: refresh,
  });
  const materialize = useMutation({
    mutationFn: (body: Record<string, number | boolean>) =>
      apiFetch<{ generation: number }>(`/api/v1/proposals/${proposal.id}/materialize`, { method: "POST", body: JSON.stringify(body) }),
    onSuccess: refresh,
  });
  const pending = proposal.items.filter((i) => i.decision === "pending").length;
  const approved = proposal.items.filter((i) => i.decision === "approved" && i.op !== "retire").length;
  const rejected = proposal.items.filter((i) => i.decision === "rejected").length;
  const runMaterialize = (rejectPending: boolean) => {
    const body: Record<string, number | boolean> = {};
    if (steps.trim()) body.trainingSteps = Number(steps);
    if (mix.trim()) body.mixWeight = Number(mix);
    if (rejectPending) body.rejectPending = true;
    materialize.mutate(body);
  };
  const submitMaterialize = (e: FormEvent) => {
    e.preventDefault();
    if (pending === 0) runMaterialize(false);
  };
  const general = proposal.comments.filter((c) => !c.itemId);
  return (
    <div className="mt-3 grid grid-cols-1 gap-3 lg:grid-cols-2">
      <Panel title={`Comments (${general.length} on the proposal, ${proposal.comments.length - general.length} on items)`}>
        <ul className="mb-2 space-y-1 text-sm" data-testid="proposal-comments">
          {general.map((c) => (
            <li key={c.id} data-testid="proposal-comment">
              <span className="font-medium">{c.author}</span> <span className="text-xs text-zinc-500">{dateTime(c.createdAt)}</span>
              <p className="whitespace-pre-wrap break-words">{c.body}</p>
            </li>
          ))}
          {general.length === 0 && <li className="text-zinc-500">No comments on the proposal yet.</li>}
        </ul>
        {canReview && (
          <CommentForm
            label="Proposal comment"
            placeholder="Comment on the proposal"
            posting={comment.isPending}
            error={comment.error ? (comment.error as Error).message : null}
            onPost={(body, done) => comment.mutate(body, { onSuccess: done })}
          />
        )}
      </Panel>
      <Panel title="Next generation">
        {proposal.materializedGeneration !== null ? (
          <p className="text-sm" data-testid="materialized">
            Materialized as{" "}
            <Link
              href={`/projects/${encodeURIComponent(slug)}/generations/${proposal.materializedGeneration}`}
              className="font-medium text-blue-700 hover:underline"
            >
              generation {proposal.materializedGeneration}
            </Link>
            . Dispatch it from its page.
          </p>
        ) : canReview ? (
          <form onSubmit={submitMaterialize} className="flex flex-wrap items-end gap-2 text-xs">
            <p className="w-full text-sm text-zinc-600">
              {pending > 0
                ? `${pending} item${pending === 1 ? " is" : "s are"} still pending: decide every item, or materialize the ` +
                  `${approved} approved and reject the rest.`
                : `${approved} approved items become the next generation: kept environments stay the same rows; mutated and added ` +
                  `ones record their parent, op and direction.`}
            </p>
            <Field label="Training steps">
              <input value={steps} onChange={(e) => setSteps(e.target.value)} inputMode="numeric" className={`${fieldClass} w-24`} />
            </Field>
            <Field label="Mix weight">
              <input value={mix} onChange={(e) => setMix(e.target.value)} inputMode="decimal" className={`${fieldClass} w-20`} />
            </Field>
            {pending === 0 ? (
              <Button type="submit" variant="primary" disabled={approved === 0} busy={materialize.isPending} data-testid="materialize">
                Materialize
              </Button>
            ) : (
              <ConfirmButton
                disabled={approved === 0 || materialize.isPending}
                message={`Materialize ${approved} approved item${approved === 1 ? "" : "s"} and reject ${pending} pending (${rejected} already rejected)?`}
                confirmLabel="Materialize and reject the rest"
                onConfirm={() => runMaterialize(true)}
                variant="primary"
                size="md"
                testId="materialize-approved-only"
              >
                Materialize approved only, reject the rest
              </ConfirmButton>
            )}
            {materialize.error && <p className="w-full text-red-700">{(materialize.error as Error).message}</p>}
          </form>
        ) : (
          <p className="text-sm text-zinc-500">Not materialized yet.</p>
        )}
      </Panel>
    </div>
  );
}
