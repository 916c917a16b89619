import type { ComponentProps } from "react";

/**
 * How a button looks: the page's main action, an ordinary one, a destructive one, a quiet text button, a
 * reviewer's approval, an inline action that reads like a link (show more, retry), a chip that toggles
 * (filters, labels, disclosure badges: drawn from its aria-pressed / aria-expanded), or a full-width row
 * of a list (a file tree; the current one says aria-current).
 */
export type ButtonVariant = "primary" | "secondary" | "danger" | "ghost" | "approve" | "link" | "toggle" | "item";
export type ButtonSize = "xs" | "sm" | "md";

const VARIANT: Record<ButtonVariant, string> = {
  primary: "border border-zinc-900 bg-zinc-900 text-white hover:bg-zinc-700",
  secondary: "border border-zinc-300 bg-white text-zinc-800 hover:bg-zinc-50",
  danger: "border border-red-700 bg-white text-red-700 hover:bg-red-50",
  ghost: "border border-transparent text-zinc-600 hover:text-zinc-900 hover:underline",
  approve: "border border-green-700 bg-white text-green-700 hover:bg-green-50",
  link: "border border-transparent text-sky-700 hover:text-sky-900 hover:underline disabled:text-zinc-500 disabled:no-underline",
  // the state lives in the aria attribute, so the look can never disagree with what assistive tech hears
  toggle: [
    "border border-zinc-300 bg-white text-zinc-700 hover:border-zinc-400 hover:bg-zinc-50",
    "aria-pressed:border-zinc-900 aria-pressed:bg-zinc-900 aria-pressed:text-white",
    "aria-expanded:border-violet-300 aria-expanded:bg-violet-100 aria-expanded:text-violet-900",
  ].join(" "),
  item: "w-full border border-transparent text-left hover:bg-zinc-100 aria-[current=true]:bg-zinc-200 aria-[current=true]:font-semibold",
};

const SIZE: Record<ButtonSize, string> = {
  xs: "px-1.5 py-0.5 text-xs",
  sm: "px-2 py-0.5 text-xs",
  md: "px-3 py-1.5 text-sm",
};

/** The class list of a button; also for links that should look like buttons. */
export function buttonClass(variant: ButtonVariant = "secondary", size: ButtonSize = "md", extra = ""): string {
  // ghost and link buttons sit inline in text, so they carry no padding of their own
  const padding = variant === "ghost" || variant === "link" ? (size === "md" ? "text-sm" : "text-xs") : SIZE[size];
  // a list row reads from the left; every other button centres its label
  const justify = variant === "item" ? "justify-start" : "justify-center";
  return `inline-flex items-center ${justify} gap-1.5 rounded ${padding} ${VARIANT[variant]} disabled:cursor-not-allowed disabled:opacity-50 ${extra}`.trim();
}

/**
 * A button. `type` defaults to "button" (a button inside a form submits only when it says so);
 * `busy` disables it and marks it aria-busy while its action runs. Every other prop, ref included, is
 * passed to the <button>.
 */
export function Button({
  variant = "secondary",
  size = "md",
  busy = false,
  disabled,
  className = "",
  type = "button",
  children,
  ...props
}: ComponentProps<"button"> & { variant?: ButtonVariant; size?: ButtonSize; busy?: boolean }) {
  return (
    <button
      {...props}
      type={type}
      disabled={disabled || busy}
      aria-busy={busy || undefined}
      className={buttonClass(variant, size, className)}
    >
      {busy && <span aria-hidden className="size-3 animate-spin rounded-full border-2 border-current border-t-transparent" />}
      {children}
    </button>
  );
}
