"use client";

import { useRouter } from "next/navigation";
import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { apiFetch } from "@/components/ui/api-client";
import { createProposalSchema } from "@/lib/proposals/contracts";
import { Button } from "@/components/ui/button";
import { Field, fieldClass } from "@/components/ui/form";
import { HEURISTIC_DEFAULTS } from "@/lib/engineer/heuristic/defaults";

/** What the form says about a field the server's schema refuses, in the form's own units. */
function formProblem(path: PropertyKey[], v: { seed: string; size: string; keep: string; add: string }): string {
  switch (path[path.length - 1]) {
    case "keepShare":
      return `Keep at most % must be a percentage between 0 and 100 (got ${v.keep}).`;
    case "addShare":
      return `New samples % must be a percentage between 0 and 100 (got ${v.add}).`;
    case "populationSize":
      return `Population must be a whole number from 1 to 100000 (got ${v.size}).`;
    case "seed":
      return `Seed must be a whole number (got ${v.seed}).`;
    default:
      return `${path.join(".") || "The request"} is not valid.`;
  }
}

/** "Propose next generation": the engineer to use and its options; opens the proposal page once queued. */
export function ProposePanel({
  slug,
  index,
  policies,
  llmAvailable,
  populationSize,
}: {
  slug: string;
  index: number;
  policies: string[];
  llmAvailable: boolean;
  populationSize: number;
}) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [engineer, setEngineer] = useState<"heuristic" | "llm">("heuristic");
  const [policy, setPolicy] = useState("");
  const [seed, setSeed] = useState("");
  const [size, setSize] = useState(String(populationSize));
  // the heuristic's own defaults, so the form proposes what the CLI and the API would
  const [keep, setKeep] = useState(String(Math.round(HEURISTIC_DEFAULTS.keepShare * 100)));
  const [add, setAdd] = useState(String(Math.round(HEURISTIC_DEFAULTS.addShare * 100)));
  const mutation = useMutation({
    mutationFn: (body: unknown) =>
      apiFetch<{ proposalId: string }>(`/api/v1/projects/${encodeURIComponent(slug)}/generations/${index}/proposals`, {
        method: "POST",
        body: JSON.stringify(body),
      }),
    onSuccess: (r) => router.push(`/projects/${encodeURIComponent(slug)}/proposals/${r.proposalId}`),
  });
  const [formError, setFormError] = useState<string | null>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const options: Record<string, unknown> = {};
    if (policy) options.policy = policy;
    if (seed.trim()) options.seed = Number(seed);
    if (size.trim()) options.populationSize = Number(size);
    if (keep.trim()) options.keepShare = Number(keep) / 100;
    if (add.trim()) options.addShare = Number(add) / 100;
    const body = { engineer, options };
    // the server's own schema decides; the message speaks the form's units (percentages, not shares)
    const parsed = createProposalSchema.safeParse(body);
    const problem = parsed.success ? null : formProblem(parsed.error.issues[0].path, { seed, size, keep, add });
    setFormError(problem);
    if (problem) return;
    mutation.mutate(body);
  };
  if (!open) {
    return (
      <Button variant="primary" size="sm" onClick={() => setOpen(true)} data-testid="propose-open">
        Propose next generation
      </Button>
    );
  }
  const input = fieldClass;
  return (
    <form
      onSubmit={submit}
      className="flex flex-wrap items-end gap-3 rounded-md border border-blue-200 bg-blue-50 p-3 text-xs"
      data-testid="propose-form"
    >
      <Field label="Engineer">
        <select
          value={engineer}
          onChange={(e) => setEngineer(e.target.value as "heuristic" | "llm")}
          className={input}
          aria-label="Engineer"
        >
          <option value="heuristic">heuristic (offline, deterministic)</option>
          <option value="llm" disabled={!llmAvailable}>
            LLM{llmAvailable ? "" : " (set OPENAI_BASE_URL and ENVFORGE_ENGINEER_MODEL)"}
          </option>
        </select>
      </Field>
      <Field label="Results of">
        <select value={policy} onChange={(e) => setPolicy(e.target.value)} className={input} aria-label="Policy">
          <option value="">all policies</option>
          {policies.map((p) => (
            <option key={p}>{p}</option>
          ))}
        </select>
      </Field>
      <Field label="Population">
        <input
          value={size}
          onChange={(e) => setSize(e.target.value)}
          className={`${input} w-20`}
          inputMode="numeric"
          aria-label="Population size"
        />
      </Field>
      <Field label="Keep at most %">
        <input
          value={keep}
          onChange={(e) => setKeep(e.target.value)}
          className={`${input} w-16`}
          inputMode="numeric"
          aria-label="Keep share"
        />
      </Field>
      <Field label="New samples %">
        <input
          value={add}
          onChange={(e) => setAdd(e.target.value)}
          className={`${input} w-16`}
          inputMode="numeric"
          aria-label="Add share"
        />
      </Field>
      <Field label="Seed">
        <input
          value={seed}
          onChange={(e) => setSeed(e.target.value)}
          className={`${input} w-24`}
          placeholder="auto"
          inputMode="numeric"
          aria-label="Seed"
        />
      </Field>
      <Button type="submit" variant="primary" busy={mutation.isPending} data-testid="propose-submit">
        {mutation.isPending ? "Queuing…" : "Propose"}
      </Button>
      <Button variant="ghost" onClick={() => setOpen(false)}>
        Cancel
      </Button>
      {(formError || mutation.error) && <p className="w-full text-red-700">{formError ?? (mutation.error as Error).message}</p>}
    </form>
  );
}
