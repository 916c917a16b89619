import { cloneElement, isValidElement, useId, type FormEvent, type ReactElement, type ReactNode } from "react";
import { ROLES } from "@/lib/auth/roles";

/** The look of a text input, select or textarea. */
export const fieldClass = "rounded border border-zinc-300 bg-white px-2 py-1 aria-[invalid=true]:border-red-600";

/** A one-row form on a white panel; submitting calls `onSubmit` without a page load. */
export function InlineForm({ onSubmit, children, testId }: { onSubmit: () => void; children: ReactNode; testId?: string }) {
  return (
    <form
      className="flex flex-wrap items-end gap-2 rounded-md border border-zinc-200 bg-white p-3"
      data-testid={testId}
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      {children}
    </form>
  );
}

/** The attributes Field gives its control. */
interface ControlProps {
  id?: string;
  "aria-describedby"?: string;
  "aria-invalid"?: boolean | "true" | "false";
}

/**
 * A label above its control (input, select or textarea), with an optional help line and error
 * message. The label names the control (htmlFor/id), help and error describe it (aria-describedby)
 * and an error marks it aria-invalid. The control keeps an id it already has.
 */
export function Field({
  label,
  help,
  error,
  children,
  className = "",
}: {
  label: ReactNode;
  help?: ReactNode;
  error?: ReactNode;
  children: ReactElement<ControlProps>;
  className?: string;
}) {
  const autoId = useId();
  const control = isValidElement<ControlProps>(children) ? children : null;
  const id = control?.props.id ?? autoId;
  const helpId = help ? `${id}-help` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [control?.props["aria-describedby"], helpId, errorId].filter(Boolean).join(" ") || undefined;
  return (
    <div className={`flex flex-col ${className}`}>
      <label htmlFor={id} className="text-xs text-zinc-500">
        {label}
      </label>
      {control ? cloneElement(control, { id, "aria-describedby": describedBy, ...(error ? { "aria-invalid": true } : {}) }) : children}
      {help && (
        <span id={helpId} className="mt-0.5 text-xs text-zinc-500">
          {help}
        </span>
      )}
      {error && (
        <span id={errorId} role="alert" className="mt-0.5 text-xs text-red-700">
          {error}
        </span>
      )}
    </div>
  );
}

/** A select of the four roles. */
export function RoleSelect({
  value,
  onChange,
  id,
  ...aria
}: { value: string; onChange: (role: string) => void; "aria-label"?: string } & ControlProps) {
  return (
    <select id={id} {...aria} className={fieldClass} value={value} onChange={(e) => onChange(e.target.value)}>
      {ROLES.map((r) => (
        <option key={r}>{r}</option>
      ))}
    </select>
  );
}
