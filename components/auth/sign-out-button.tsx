"use client";

import { useRouter } from "next/navigation";

/** Ends the browser session. */
export function SignOutButton() {
  const router = useRouter();
  return (
    <button
      type="button"
      className="rounded px-2 py-1 text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900"
      onClick={async () => {
        await fetch("/api/auth/signout", { method: "POST" });
        router.push("/signin");
        router.refresh();
      }}
    >
      Sign out
    </button>
  );
}
