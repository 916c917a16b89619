import type { ReactNode } from "react";

/** One headline figure: a label, its value and an optional line (or tooltip) saying what it means. */
export function Tile({
  label,
  value,
  hint,
  description,
  testId,
}: {
  label: ReactNode;
  value: ReactNode;
  hint?: string;
  description?: ReactNode;
  testId?: string;
}) {
  return (
    <div className="min-w-0 rounded-md border border-zinc-200 bg-white px-3 py-2" title={hint} data-testid={testId}>
      <div className="truncate text-xs text-zinc-500">{label}</div>
      <div className="num text-lg font-semibold text-zinc-900">{value}</div>
      {description && <div className="text-xs text-zinc-500">{description}</div>}
    </div>
  );
}

/** A responsive grid of tiles: two a row on phones, up to `columns` on wide screens. */
export function TileGrid({ children, columns = 6 }: { children: ReactNode; columns?: 3 | 4 | 5 | 6 }) {
  const wide = { 3: "md:grid-cols-3", 4: "md:grid-cols-4", 5: "md:grid-cols-5", 6: "md:grid-cols-6" }[columns];
  return <div className={`mb-3 grid grid-cols-2 gap-2 ${wide}`}>{children}</div>;
}
