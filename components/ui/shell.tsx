import Link from "next/link";
import type { ReactNode } from "react";
import type { Principal } from "@/lib/auth/principal";
import { hasScope } from "@/lib/auth/roles";
import { SignOutButton } from "@/components/auth/sign-out-button";
import { SiteNav } from "@/components/ui/site-nav";

/** The page frame: top bar with navigation and the signed-in user, breadcrumbs, content. */
export function Shell({
  user,
  crumbs = [],
  children,
  actions,
}: {
  user: Principal;
  crumbs?: { href?: string; label: string }[];
  children: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <div className="min-h-screen">
      <header className="flex min-h-11 flex-wrap items-center gap-x-4 gap-y-1 border-b border-zinc-200 bg-white px-4 py-2">
        <Link href="/" className="font-semibold tracking-tight text-zinc-900">
          EnvForge
        </Link>
        <SiteNav
          links={[
            { href: "/", label: "Projects" },
            { href: "/families", label: "Families" },
            { href: "/arena", label: "Arena" },
            ...(hasScope(user.role, "keys:manage") ? [{ href: "/settings/keys", label: "API keys" }] : []),
            ...(hasScope(user.role, "users:manage") ? [{ href: "/settings/users", label: "Accounts" }] : []),
          ]}
        />
        <div className="ml-auto flex items-center gap-2 whitespace-nowrap text-zinc-600 sm:gap-3">
          <span data-testid="current-user">
            {user.name} <span className="rounded bg-zinc-100 px-1.5 py-0.5 text-xs text-zinc-600">{user.role}</span>
          </span>
          <SignOutButton />
        </div>
      </header>
      <div className="mx-auto max-w-7xl px-4 py-4">
        <div className="mb-3 flex flex-wrap items-center gap-2">
          <nav aria-label="Breadcrumb" className="flex min-w-0 flex-wrap items-center gap-1.5 text-zinc-500">
            {crumbs.map((c, i) => (
              <span key={i} className="flex items-center gap-1.5">
                {i > 0 && <span>/</span>}
                {c.href ? (
                  <Link href={c.href} className="hover:text-zinc-900">
                    {c.label}
                  </Link>
                ) : (
                  <span className="font-medium text-zinc-900">{c.label}</span>
                )}
              </span>
            ))}
          </nav>
          <div className="ml-auto">{actions}</div>
        </div>
        {children}
      </div>
    </div>
  );
}

/** A titled white panel. */
export function Panel({
  title,
  children,
  className = "",
  right,
}: {
  title?: ReactNode;
  children: ReactNode;
  className?: string;
  right?: ReactNode;
}) {
  return (
    <section className={`rounded-md border border-zinc-200 bg-white ${className}`}>
      {title && (
        <div className="flex items-center border-b border-zinc-100 px-3 py-2">
          <h2 className="text-sm font-semibold text-zinc-800">{title}</h2>
          <div className="ml-auto">{right}</div>
        </div>
      )}
      <div className="p-3">{children}</div>
    </section>
  );
}
