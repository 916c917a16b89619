"use client";

import { useRouter } from "next/navigation";
import { Button } from "@/components/ui/button";

/** Ends the browser session. */
export function SignOutButton() {
  const router = useRouter();
  return (
    <Button
      variant="ghost"
      onClick={async () => {
        await fetch("/api/auth/signout", { method: "POST" });
        router.push("/signin");
        router.refresh();
      }}
    >
      Sign out
    </Button>
  );
}
