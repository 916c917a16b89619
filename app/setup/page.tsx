import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { getDb } from "@/lib/db/client";
import { isLoopbackRequest, needsSetup } from "@/lib/auth/users";
import { AuthCard } from "@/components/auth/auth-card";
import { CredentialsForm } from "@/components/auth/credentials-form";

export const dynamic = "force-dynamic";
export const metadata = { title: "First run" };

export default async function SetupPage() {
  if (!(await needsSetup(getDb()))) redirect("/signin");
  const local = isLoopbackRequest(await headers());
  return (
    <AuthCard title="Create the first admin">
      {local ? (
        <>
          <p className="mb-4 text-zinc-600">
            No account exists yet. The first account is an admin; it can invite others and create API keys.
          </p>
          <CredentialsForm mode="setup" />
        </>
      ) : (
        <p className="text-zinc-600">
          The first admin can only be created from the machine EnvForge runs on, at http://127.0.0.1 or http://localhost: open this page
          there, or start with
          <code className="mx-1 rounded bg-zinc-100 px-1">ENVFORGE_BOOTSTRAP_TOKEN</code>and create accounts through the API.
        </p>
      )}
    </AuthCard>
  );
}
