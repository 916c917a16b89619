/** An audit event's before/after: a one-line preview, the full states pretty-printed on demand. */
export function AuditChange({ before, after }: { before?: unknown; after?: unknown }) {
  if (before === undefined && after === undefined) return <span className="text-zinc-500">—</span>;
  const preview = JSON.stringify(after ?? before);
  return (
    <details className="group max-w-[28rem]" data-testid="audit-change">
      <summary className="cursor-pointer truncate rounded font-mono text-xs text-zinc-700 hover:text-zinc-900">
        <span className="sr-only">Before and after: </span>
        {preview}
      </summary>
      <div className="mt-1 grid gap-2 sm:grid-cols-2">
        {(
          [
            ["Before", before],
            ["After", after],
          ] as const
        ).map(([label, state]) => (
          <div key={label} className="min-w-0">
            <div className="text-xs font-medium text-zinc-600">{label}</div>
            <pre
              tabIndex={0}
              className="max-h-96 overflow-auto rounded border border-zinc-200 bg-zinc-50 p-2 font-mono text-xs whitespace-pre text-zinc-800"
              data-testid={`audit-${label.toLowerCase()}`}
            >
              {state === undefined ? "—" : JSON.stringify(state, null, 2)}
            </pre>
          </div>
        ))}
      </div>
    </details>
  );
}
