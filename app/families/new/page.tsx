import { requireUserWith } from "@/lib/api/page-guard";
import { Shell } from "@/components/ui/shell";
import { RegisterFamilyForm } from "@/components/families/register-family-form";

export const dynamic = "force-dynamic";
export const metadata = { title: "Register a family" };

/** Admin: register a custom family (JSON Schema + field metadata) for new projects to use. */
export default async function RegisterFamilyPage() {
  const user = await requireUserWith("families:write", "/families/new");
  return (
    <Shell user={user} crumbs={[{ href: "/families", label: "Families" }, { label: "Register" }]}>
      <h1 className="mb-1 text-xl font-semibold">Register a family</h1>
      <p className="mb-4 max-w-3xl text-zinc-600">
        A family is the shape of an environment&apos;s config: a JSON Schema, plus which fields the environment engineer may change, their
        bounds or levels and which way is harder. Once registered, new projects can use it.
      </p>
      <RegisterFamilyForm />
    </Shell>
  );
}
