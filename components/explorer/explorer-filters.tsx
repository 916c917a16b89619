"use client";
/**
 * The explorer's filters as a GET form: submitting puts the non-empty ones in the URL (so a reload or a
 * shared link shows the same rows); without JavaScript the browser submits it as it is.
 */
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { Button } from "@/components/ui/button";
import { Field, fieldClass } from "@/components/ui/form";

const RANGES = [
  ["Reward", "minReward", "maxReward", "0.01"],
  ["Turns", "minTurns", "maxTurns", "1"],
  ["Tokens", "minTokens", "maxTokens", "1"],
  ["Duration (s)", "minDuration", "maxDuration", "1"],
  ["Tests passed", "minTestsPassed", "maxTestsPassed", "1"],
] as const;

export function ExplorerFilters({
  values,
  generations,
  policies,
  labels,
  categories,
}: {
  values: Record<string, string>;
  generations: number[];
  policies: string[];
  labels: string[];
  categories: string[];
}) {
  const router = useRouter();
  const pathname = usePathname();
  const select = (name: string, label: string, options: (string | number)[], optionLabel = (o: string | number) => String(o)) => (
    <Field label={label}>
      <select name={name} defaultValue={values[name] ?? ""} className={`${fieldClass} max-w-44`}>
        <option value="">any</option>
        {options.map((o) => (
          <option key={String(o)} value={String(o)}>
            {optionLabel(o)}
          </option>
        ))}
      </select>
    </Field>
  );
  return (
    <form
      role="search"
      aria-label="Filter rollouts"
      action={pathname}
      className="flex flex-wrap items-end gap-x-3 gap-y-2 rounded-md border border-zinc-200 bg-white p-3 text-sm"
      data-testid="explorer-filters"
      // the form's key changes with the URL, so its fields show what the URL says after back/forward
      key={JSON.stringify(values)}
      onSubmit={(e) => {
        e.preventDefault();
        const query = new URLSearchParams();
        for (const [k, v] of new FormData(e.currentTarget)) if (typeof v === "string" && v.trim() !== "") query.set(k, v.trim());
        router.push(`${pathname}${query.size ? `?${query}` : ""}`);
      }}
    >
      <Field label="search" help='words, "a phrase", -word, or; 3+ characters also match inside paths' className="min-w-60 grow">
        <input
          name="q"
          type="search"
          defaultValue={values.q ?? ""}
          className={fieldClass}
          maxLength={500}
          placeholder="Segmentation fault"
        />
      </Field>
      {select("generation", "generation", generations, (g) => `G${g}`)}
      {select("policy", "policy", policies)}
      <Field label="environment">
        <input name="environmentKey" defaultValue={values.environmentKey ?? ""} className={`${fieldClass} w-40`} />
      </Field>
      {select("success", "outcome", ["true", "false"], (o) => (o === "true" ? "success" : "failure"))}
      {select("status", "status", ["completed", "errored"])}
      {select("category", "failure category", categories)}
      <Field label="behaviour">
        <input name="behaviour" defaultValue={values.behaviour ?? ""} className={`${fieldClass} w-32`} placeholder="step_cap" />
      </Field>
      <Field label="cluster id">
        <input name="cluster" defaultValue={values.cluster ?? ""} className={`${fieldClass} w-40`} pattern="[0-9a-f]{16}" />
      </Field>
      {select("label", "label", labels)}
      {RANGES.map(([label, min, max, step]) => (
        <fieldset key={min} className="flex flex-col">
          <legend className="text-xs text-zinc-500">{label}</legend>
          <span className="flex gap-1">
            <input
              name={min}
              type="number"
              step={step}
              min={min === "minReward" ? undefined : 0}
              aria-label={`${label} at least`}
              defaultValue={values[min] ?? ""}
              className={`${fieldClass} w-20`}
              placeholder="min"
            />
            <input
              name={max}
              type="number"
              step={step}
              min={max === "maxReward" ? undefined : 0}
              aria-label={`${label} at most`}
              defaultValue={values[max] ?? ""}
              className={`${fieldClass} w-20`}
              placeholder="max"
            />
          </span>
        </fieldset>
      ))}
      {values.sort && <input type="hidden" name="sort" value={values.sort} />}
      <span className="flex gap-2">
        <Button type="submit" variant="primary" size="sm">
          Apply
        </Button>
        <Link href={pathname} className="self-center text-xs text-zinc-600 hover:underline">
          Clear
        </Link>
      </span>
    </form>
  );
}
