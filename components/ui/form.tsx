import type { FormEvent, ReactNode } from "react";
import { ROLES } from "@/lib/auth/roles";

/** The input style of settings forms. */
export const fieldClass = "rounded border border-zinc-300 px-2 py-1";

/** A one-row form on a white panel; submitting calls `onSubmit` without a page load. */
export function InlineForm({ onSubmit, children }: { onSubmit: () => void; children: ReactNode }) {
  return (
    <form
      className="flex flex-wrap items-end gap-2 rounded-md border border-zinc-200 bg-white p-3"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      {children}
    </form>
  );
}

/** A small label above its control (the label names the control for assistive tech and tests). */
export function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <label className="flex flex-col">
      <span className="text-xs text-zinc-500">{label}</span>
      {children}
    </label>
  );
}

/** A select of the four roles. */
export function RoleSelect({ value, onChange }: { value: string; onChange: (role: string) => void }) {
  return (
    <select className={fieldClass} value={value} onChange={(e) => onChange(e.target.value)}>
      {ROLES.map((r) => (
        <option key={r}>{r}</option>
      ))}
    </select>
  );
}
