import Link from "next/link";
import { AuthCard } from "@/components/auth/auth-card";

export default function NotFoundPage() {
  return (
    <AuthCard title="Not found">
      <p className="text-zinc-600">
        There is no such project, generation or family here. It may have been renamed, or the link may be mistyped.
      </p>
      <Link href="/" className="mt-4 inline-block text-zinc-900 underline">
        Back to projects
      </Link>
    </AuthCard>
  );
}
