import { redirect } from "next/navigation";
import { getDb } from "@/lib/db/client";
import { needsSetup } from "@/lib/auth/users";
import { currentUser } from "@/lib/auth/page";
import { AuthCard } from "@/components/auth/auth-card";
import { CredentialsForm } from "@/components/auth/credentials-form";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in" };

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  if (await needsSetup(getDb())) redirect("/setup");
  if (await currentUser()) redirect("/");
  const { next } = await searchParams;
  return (
    <AuthCard title="Sign in">
      <CredentialsForm mode="signin" next={next ?? "/"} />
    </AuthCard>
  );
}
