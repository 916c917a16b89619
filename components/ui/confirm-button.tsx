"use client";

import { useEffect, useRef, useState, type ReactNode } from "react";
import { Button, type ButtonSize, type ButtonVariant } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";

/**
 * A button whose action runs only after a second, explicit confirmation in a modal Dialog that says
 * what will happen (bulk decisions, materializing, deleting): one click never does something wide.
 * The confirm button takes the focus, so Enter confirms and Escape cancels.
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
  // runs after the Dialog's own effect has opened it (a child's effects run first), so the focus sticks
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
  }, [asking]);
  return (
    <>
      <Button
        variant={variant}
        size={size}
        disabled={disabled}
        onClick={() => setAsking(true)}
        className={className}
        data-testid={testId}
        aria-haspopup="dialog"
        // while the dialog asks, the page behind is inert; hiding the trigger keeps one button of each name in reach
        aria-hidden={asking || undefined}
        tabIndex={asking ? -1 : undefined}
      >
        {children}
      </Button>
      <Dialog
        open={asking}
        onClose={() => setAsking(false)}
        title="Confirm"
        testId={testId ? `${testId}-confirm` : undefined}
        width="w-96"
        footer={
          <>
            <Button variant="ghost" size="sm" onClick={() => setAsking(false)}>
              Cancel
            </Button>
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
          </>
        }
      >
        <p className="text-sm text-zinc-800">{message}</p>
      </Dialog>
    </>
  );
}
