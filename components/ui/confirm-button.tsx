"use client";

import { useEffect, useRef, useState, type ReactNode } from "react";

/**
 * A button whose action runs only after a second, explicit confirmation that says what will happen
 * (bulk decisions, materializing, deleting): one click never does something wide.
 */
export function ConfirmButton({
  children,
  message,
  confirmLabel = "Confirm",
  onConfirm,
  disabled,
  className = "",
  testId,
  tone = "neutral",
}: {
  children: ReactNode;
  message: ReactNode;
  confirmLabel?: string;
  onConfirm: () => void;
  disabled?: boolean;
  className?: string;
  testId?: string;
  tone?: "neutral" | "danger";
}) {
  const [asking, setAsking] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button type="button" disabled={disabled} onClick={() => setAsking(true)} className={className} data-testid={testId}>
        {children}
      </button>
    );
  }
  return (
    <span
      role="alertdialog"
      aria-label="Confirm"
      className="inline-flex flex-wrap items-center gap-2 rounded border border-amber-300 bg-amber-50 px-2 py-1 text-xs text-zinc-800"
      data-testid={testId ? `${testId}-confirm` : undefined}
      onKeyDown={(e) => {
        if (e.key === "Escape") setAsking(false);
      }}
    >
      <span>{message}</span>
      <button
        ref={confirmRef}
        type="button"
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
        className={`rounded px-2 py-0.5 font-medium text-white ${tone === "danger" ? "bg-red-700 hover:bg-red-600" : "bg-zinc-900 hover:bg-zinc-700"}`}
      >
        {confirmLabel}
      </button>
      <button type="button" onClick={() => setAsking(false)} className="px-1 text-zinc-600 hover:text-zinc-900">
        Cancel
      </button>
    </span>
  );
}
