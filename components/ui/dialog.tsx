"use client";

import { useEffect, useId, useRef, type ReactNode } from "react";
import { Button } from "@/components/ui/button";

/**
 * A modal dialog on the native <dialog> element: showModal() makes the page behind it inert (focus
 * stays inside), Escape and a click on the backdrop call `onClose`, and focus returns to where it was
 * when the dialog opened. The title labels the dialog. `open` is owned by the caller.
 */
export function Dialog({
  open,
  onClose,
  title,
  children,
  footer,
  width = "w-80",
  testId,
}: {
  open: boolean;
  onClose: () => void;
  title: ReactNode;
  children: ReactNode;
  footer?: ReactNode;
  /** a Tailwind width class; the dialog never exceeds the viewport */
  width?: string;
  testId?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const onCloseRef = useRef(onClose);
  useEffect(() => {
    onCloseRef.current = onClose;
  });

  useEffect(() => {
    const dialog = ref.current;
    if (!open || !dialog) return;
    const before = document.activeElement;
    if (!dialog.open) dialog.showModal();
    // Escape: the caller decides (it owns `open`); a forced close (the browser's close watcher) tells it too
    const cancel = (e: Event) => {
      e.preventDefault();
      onCloseRef.current();
    };
    const closed = () => onCloseRef.current();
    dialog.addEventListener("cancel", cancel);
    dialog.addEventListener("close", closed);
    return () => {
      dialog.removeEventListener("cancel", cancel);
      dialog.removeEventListener("close", closed);
      if (dialog.open) dialog.close();
      if (before instanceof HTMLElement) before.focus();
    };
  }, [open]);

  return (
    <dialog
      ref={ref}
      role="dialog"
      aria-modal="true"
      aria-labelledby={titleId}
      data-testid={testId}
      className={
        `mx-auto mt-24 max-w-[calc(100vw-2rem)] rounded-md border border-zinc-200 bg-white p-0 text-zinc-900 shadow-lg ` +
        `backdrop:bg-zinc-900/20 ${width}`
      }
      onMouseDown={(e) => {
        // the <dialog> itself is only hit outside its content box: the backdrop
        if (e.target === e.currentTarget) onClose();
      }}
    >
      {open && (
        <div>
          <div className="flex items-center border-b border-zinc-100 px-3 py-2">
            <h2 id={titleId} className="text-sm font-semibold text-zinc-800">
              {title}
            </h2>
            <Button variant="ghost" size="sm" className="ml-auto" onClick={onClose}>
              Close
            </Button>
          </div>
          <div className="p-3">{children}</div>
          {footer && <div className="flex justify-end gap-2 border-t border-zinc-100 px-3 py-2">{footer}</div>}
        </div>
      )}
    </dialog>
  );
}
