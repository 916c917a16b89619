"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useEffect, useState, type ReactNode } from "react";

/** TanStack Query for client components (mutations through route handlers, not server actions). */
export function Providers({ children }: { children: ReactNode }) {
  const [client] = useState(() => new QueryClient({ defaultOptions: { queries: { staleTime: 5_000, refetchOnWindowFocus: false } } }));
  // marks the page interactive (keyboard shortcuts attached); browser tests wait for it
  useEffect(() => document.documentElement.setAttribute("data-hydrated", "true"), []);
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
