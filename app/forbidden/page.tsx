import Link from "next/link";
import { AuthCard } from "@/components/auth/auth-card";

export const metadata = { title: "Not allowed" };

export default async function ForbiddenPage({ searchParams }: { searchParams: Promise<{ need?: string }> }) {
  const { need } = await searchParams;
  return (
    <AuthCard title="Not allowed">
      <p className="text-zinc-600">
        Your role does not allow this page{need ? ` (it needs ${need})` : ""}. Ask an admin for a role that does.
      </p>
      <Link href="/" className="mt-4 inline-block text-zinc-900 underline">
        Back to projects
      </Link>
    </AuthCard>
  );
}
