import { redirect } from "next/navigation";
import { getDb } from "@/lib/db/client";
import { needsSetup } from "@/lib/auth/users";
import { currentUser } from "@/lib/api/page-guard";
import { safeNextPath } from "@/lib/auth/next-path";
import { AuthCard } from "@/components/auth/auth-card";
import { CredentialsForm } from "@/components/auth/credentials-form";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in" };

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ next?: string | string[] }> }) {
  if (await needsSetup(getDb())) redirect("/setup");
  const next = safeNextPath((await searchParams).next);
  if (await currentUser()) redirect(next);
  return (
    <AuthCard title="Sign in">
      <CredentialsForm mode="signin" next={next} />
    </AuthCard>
  );
}
