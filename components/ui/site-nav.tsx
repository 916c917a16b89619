"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useState } from "react";

/** One link of the top navigation. */
export interface NavLink {
  href: string;
  label: string;
}

/** Whether a link is the section the page belongs to (Projects owns everything under /projects). */
function isCurrent(href: string, pathname: string): boolean {
  if (href === "/") return pathname === "/" || pathname.startsWith("/projects");
  return pathname === href || pathname.startsWith(`${href}/`);
}

/**
 * The top navigation: inline from the `sm` width up; on a phone a Menu button (aria-expanded) opens it
 * as a list under the bar. It closes again when the page changes or on Escape.
 */
export function SiteNav({ links }: { links: NavLink[] }) {
  const pathname = usePathname();
  const [open, setOpen] = useState(false);
  const [openedAt, setOpenedAt] = useState(pathname);
  // a navigation closes the menu: derived from the path it was opened on, no effect needed
  const shown = open && openedAt === pathname;

  useEffect(() => {
    if (!shown) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") setOpen(false);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [shown]);

  return (
    <>
      <button
        type="button"
        className="rounded border border-zinc-300 px-2 py-1 text-sm text-zinc-700 hover:bg-zinc-50 sm:hidden"
        aria-expanded={shown}
        aria-controls="site-nav"
        onClick={() => {
          setOpenedAt(pathname);
          setOpen(!shown);
        }}
      >
        Menu
      </button>
      <nav
        id="site-nav"
        aria-label="Main"
        className={
          `${shown ? "flex" : "hidden"} order-last w-full flex-col gap-1 border-t border-zinc-100 pt-2 sm:order-none sm:flex ` +
          `sm:w-auto sm:flex-row sm:items-center sm:gap-x-3 sm:border-0 sm:pt-0 whitespace-nowrap text-zinc-600`
        }
      >
        {links.map((l) => {
          const current = isCurrent(l.href, pathname);
          return (
            <Link
              key={l.href}
              href={l.href}
              aria-current={current ? "page" : undefined}
              className={`rounded px-1 py-1 hover:text-zinc-900 sm:py-0 ${current ? "font-medium text-zinc-900" : ""}`}
            >
              {l.label}
            </Link>
          );
        })}
      </nav>
    </>
  );
}
