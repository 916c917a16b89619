import { getDb } from "@/lib/db/client";
import { orNotFound, requireUser } from "@/lib/auth/page";
import { getFamily } from "@/lib/projects/families";
import { Panel, Shell } from "@/components/ui/shell";

export const dynamic = "force-dynamic";

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }) {
  return { title: (await params).id };
}

export default async function FamilyPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const user = await requireUser(`/families/${id}`);
  const family = await orNotFound(getFamily(getDb(), id));
  return (
    <Shell user={user} crumbs={[{ href: "/families", label: "Families" }, { label: family.id }]}>
      <h1 className="text-xl font-semibold">
        {family.id} <span className="text-sm font-normal text-zinc-400">v{family.version}</span>
      </h1>
      <p className="mb-4 text-zinc-600">{family.description}</p>
      <Panel title="Fields">
        <table className="w-full" data-testid="family-fields">
          <thead className="text-left text-xs uppercase tracking-wide text-zinc-500">
            <tr>
              <th className="py-1.5">Field</th>
              <th>Kind</th>
              <th>Range or levels</th>
              <th>Harder when</th>
              <th>Direction</th>
              <th>Mutable</th>
              <th>Description</th>
            </tr>
          </thead>
          <tbody>
            {family.fields.map((f) => (
              <tr key={f.path} className="border-t border-zinc-100 align-top">
                <td className="py-1.5 font-mono text-xs">{f.path}</td>
                <td>{f.kind}</td>
                <td className="font-mono text-xs text-zinc-600">
                  {f.levels ? f.levels.map(String).join(f.kind === "ordinal" ? " < " : " | ") : f.min !== undefined || f.max !== undefined ? `${f.min ?? "−∞"} … ${f.max ?? "∞"}` : ""}
                </td>
                <td>{f.difficulty === "up" ? "raised" : f.difficulty === "down" ? "lowered" : ""}</td>
                <td>{f.direction ?? ""}</td>
                <td>{f.mutable === false ? "no" : "yes"}</td>
                <td className="text-zinc-600">{f.description ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Panel>
      <Panel title="JSON Schema" className="mt-4">
        <pre className="max-h-96 overflow-auto text-xs">{JSON.stringify(family.jsonSchema, null, 2)}</pre>
      </Panel>
    </Shell>
  );
}
