"use client";

import { diffConfigs, showValue } from "@/lib/review/config-diff";

/** A config against what it replaces (or alone), optionally only the changed fields. */
export function ConfigDiff({ before, after, changedOnly = false }: { before: unknown | null; after: unknown; changedOnly?: boolean }) {
  const hasBefore = before !== null && before !== undefined;
  const rows = hasBefore ? diffConfigs(before, after) : diffConfigs(after, after);
  const shown = changedOnly && hasBefore ? rows.filter((r) => r.changed) : rows;
  if (shown.length === 0) return <p className="text-xs text-zinc-500">No field changed.</p>;
  return (
    <table className="w-full text-xs" data-testid="config-diff">
      <tbody>
        {shown.map((r) => (
          <tr key={r.path} className={r.changed ? "bg-amber-50" : ""} data-changed={r.changed}>
            <td className="py-0.5 pr-3 align-top font-mono text-zinc-500">{r.path}</td>
            {hasBefore && <td className={`break-all pr-3 align-top font-mono ${r.changed ? "text-red-700 line-through decoration-red-300" : "text-zinc-500"}`}>{showValue(r.before)}</td>}
            <td className={`break-all align-top font-mono ${r.changed ? "font-semibold text-green-800" : ""}`}>{showValue(r.after)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
