import Link from "next/link";
import { getDb } from "@/lib/db/client";
import { requireUser } from "@/lib/api/page-guard";
import { listFamilies } from "@/lib/family-store";
import { Shell } from "@/components/ui/shell";
import { hasScope } from "@/lib/auth/roles";
import { buttonClass } from "@/components/ui/button";

export const dynamic = "force-dynamic";
export const metadata = { title: "Families" };

export default async function FamiliesPage() {
  const user = await requireUser("/families");
  const families = await listFamilies(getDb());
  return (
    <Shell
      user={user}
      crumbs={[{ label: "Families" }]}
      actions={
        hasScope(user.role, "families:write") && (
          <Link href="/families/new" className={buttonClass("secondary", "sm")}>
            Register a family
          </Link>
        )
      }
    >
      <div className="grid gap-3 md:grid-cols-2">
        {families.map((f) => (
          <Link
            key={f.id}
            href={`/families/${f.id}`}
            className="block rounded-md border border-zinc-200 bg-white p-3 hover:border-zinc-400"
          >
            <div className="flex items-baseline gap-2">
              <span className="font-semibold">{f.id}</span>
              <span className="text-xs text-zinc-500">v{f.version}</span>
              <span className="ml-auto text-xs text-zinc-500">{f.builtin ? "built-in" : "registered"}</span>
            </div>
            <p className="mt-1 text-zinc-600">{f.description}</p>
            <p className="mt-1 text-xs text-zinc-500">{f.fields.length} fields</p>
          </Link>
        ))}
      </div>
    </Shell>
  );
}
