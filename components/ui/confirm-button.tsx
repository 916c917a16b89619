"use client";

import { useEffect, useRef, useState, type ReactNode } from "react";
import { Button, type ButtonSize, type ButtonVariant } from "@/components/ui/button";

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
  variant = "secondary",
  size = "sm",
}: {
  children: ReactNode;
  message: ReactNode;
  confirmLabel?: string;
  onConfirm: () => void;
  disabled?: boolean;
  className?: string;
  testId?: string;
  tone?: "neutral" | "danger";
  /** how the first button looks */
  variant?: ButtonVariant;
  size?: ButtonSize;
}) {
  const [asking, setAsking] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <Button variant={variant} size={size} disabled={disabled} onClick={() => setAsking(true)} className={className} data-testid={testId}>
        {children}
      </Button>
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
      <Button
        ref={confirmRef}
        variant={tone === "danger" ? "danger" : "primary"}
        size="sm"
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirmLabel}
      </Button>
      <Button variant="ghost" size="sm" onClick={() => setAsking(false)}>
        Cancel
      </Button>
    </span>
  );
}
