"use client";

import { useRouter } from "next/navigation";
import { useEffect, useEffectEvent, useRef, useState, type RefObject } from "react";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";

/** True when keystrokes aimed at `el` are text entry (input, textarea, select, contenteditable). */
export function isTypingTarget(el: EventTarget | null): boolean {
  if (!(el instanceof HTMLElement)) return false;
  return el.isContentEditable || el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT";
}

/**
 * Calls `map[e.key]` on keydown anywhere in the window. Keys with ctrl/meta/alt are left to the
 * browser; while typing in a field everything is ignored except Escape, which leaves the field, and
 * nothing fires while a modal dialog is open.
 * The latest `map` is always used, so it needs no dependency list.
 */
export function useShortcuts(map: Record<string, (e: KeyboardEvent) => void>) {
  const onKeyDown = useEffectEvent((e: KeyboardEvent) => {
    if (e.defaultPrevented || e.isComposing || e.ctrlKey || e.metaKey || e.altKey) return;
    if (isTypingTarget(e.target)) {
      if (e.key === "Escape") (e.target as HTMLElement).blur();
      return;
    }
    // a modal dialog (a confirmation, the shortcut list) owns the keyboard: the page behind it is inert
    if (document.querySelector("dialog[open]")) return;
    map[e.key]?.(e);
  });
  useEffect(() => {
    const listener = (e: KeyboardEvent) => onKeyDown(e);
    window.addEventListener("keydown", listener);
    return () => window.removeEventListener("keydown", listener);
  }, []);
}

/** Props that mark a list row as the keyboard selection; spread them on a <tr> or <li>. */
export interface RowProps {
  "data-selected": boolean;
  /** "true" on the selected row: aria-selected is not allowed on list items and plain table rows, aria-current is */
  "aria-current": "true" | undefined;
  tabIndex: number;
  ref: (el: HTMLElement | null) => void;
  onClick: () => void;
}

/**
 * j/k move a selection through `items` (clamped), Enter opens the selected item (router.push of
 * getHref(item), else onOpen(item)), and the selected row scrolls into view. `selected` is -1
 * until something is selected (or `initialIndex`); clicking a row selects it.
 */
export function useListNavigation<T>({
  items,
  getHref,
  onOpen,
  initialIndex = -1,
}: {
  items: readonly T[];
  getHref?: (item: T) => string;
  onOpen?: (item: T) => void;
  initialIndex?: number;
}): { selected: number; setSelected: (index: number) => void; rowProps: (index: number) => RowProps } {
  const router = useRouter();
  const [index, setIndex] = useState(initialIndex);
  const rows = useRef<(HTMLElement | null)[]>([]);
  // The list may shrink under the selection (a filter, a new page): keep it on the last row.
  const selected = Math.min(index, items.length - 1);

  // j/k move focus onto the selected row, so Enter opens it even after a click left focus on a
  // button elsewhere (a sort header, a filter); a selection set on load takes no focus
  const focusOnMove = useRef(false);
  useEffect(() => {
    if (selected < 0) return;
    const row = rows.current[selected];
    row?.scrollIntoView({ block: "nearest" });
    if (focusOnMove.current) row?.focus({ preventScroll: true });
    focusOnMove.current = false;
  }, [selected]);

  useShortcuts({
    j: () => {
      focusOnMove.current = true;
      setIndex(Math.min(selected + 1, items.length - 1));
    },
    k: () => {
      focusOnMove.current = true;
      setIndex(Math.max(selected - 1, Math.min(0, items.length - 1)));
    },
    Enter: (e) => {
      // A focused link or button handles Enter itself.
      if (e.target instanceof Element && e.target.closest("a, button, summary, [role=button]")) return;
      const item = items[selected];
      if (selected < 0 || item === undefined) return;
      e.preventDefault();
      if (getHref) router.push(getHref(item));
      else onOpen?.(item);
    },
  });

  return {
    selected,
    setSelected: setIndex,
    rowProps: (i) => ({
      "data-selected": i === selected,
      "aria-current": i === selected ? "true" : undefined,
      tabIndex: -1,
      ref: (el) => {
        rows.current[i] = el;
      },
      onClick: () => setIndex(i),
    }),
  };
}

/** A "? Shortcuts" button, and a dialog listing the shortcuts that "?" or the button opens. */
export function ShortcutHelp({ shortcuts }: { shortcuts: { keys: string; description: string }[] }) {
  const [open, setOpen] = useState(false);
  useShortcuts({ "?": () => setOpen(true) });
  return (
    <>
      <Button variant="ghost" size="sm" onClick={() => setOpen(true)}>
        ? Shortcuts
      </Button>
      <Dialog open={open} onClose={() => setOpen(false)} title="Keyboard shortcuts">
        <dl className="space-y-1.5 text-sm">
          {shortcuts.map((s) => (
            <div key={s.keys} className="flex items-center gap-3">
              <dt className="w-16 shrink-0">
                <kbd className="rounded border border-zinc-300 bg-zinc-50 px-1.5 py-0.5 font-mono text-xs text-zinc-700 shadow-[inset_0_-1px_0_#d4d4d8]">
                  {s.keys}
                </kbd>
              </dt>
              <dd className="text-zinc-600">{s.description}</dd>
            </div>
          ))}
        </dl>
      </Dialog>
    </>
  );
}

/** "/" focuses and selects the search field (the "/" itself is not typed). */
export function useSearchShortcut(ref: RefObject<HTMLInputElement | null>) {
  useShortcuts({
    "/": (e) => {
      const input = ref.current;
      if (!input) return;
      e.preventDefault();
      input.focus();
      input.select();
    },
  });
}
