import { getDb } from "@/lib/db/client";
import { orNotFound, requireUser } from "@/lib/api/page-guard";
import { getFamily } from "@/lib/family-store";
import { Panel, Shell } from "@/components/ui/shell";
import { Table } from "@/components/ui/table";

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
        {family.id} <span className="text-sm font-normal text-zinc-500">v{family.version}</span>
      </h1>
      <p className="mb-4 text-zinc-600">{family.description}</p>
      <Panel title="Fields">
        <Table
          testId="family-fields"
          rows={family.fields}
          rowKey={(f) => f.path}
          empty="This family declares no fields."
          columns={[
            { key: "path", header: "Field", cell: (f) => f.path, className: "font-mono text-xs" },
            { key: "kind", header: "Kind", cell: (f) => f.kind },
            {
              key: "range",
              header: "Range or levels",
              className: "font-mono text-xs text-zinc-600",
              cell: (f) =>
                f.levels
                  ? f.levels.map(String).join(f.kind === "ordinal" ? " < " : " | ")
                  : f.min !== undefined || f.max !== undefined
                    ? `${f.min ?? "−∞"} … ${f.max ?? "∞"}`
                    : "",
            },
            {
              key: "difficulty",
              header: "Harder when",
              cell: (f) => (f.difficulty === "up" ? "raised" : f.difficulty === "down" ? "lowered" : ""),
            },
            { key: "direction", header: "Direction", cell: (f) => f.direction ?? "" },
            { key: "mutable", header: "Mutable", cell: (f) => (f.mutable === false ? "no" : "yes") },
            { key: "description", header: "Description", cell: (f) => f.description ?? "", className: "min-w-48 text-zinc-600" },
          ]}
        />
      </Panel>
      <Panel title="JSON Schema" className="mt-4">
        <pre tabIndex={0} className="max-h-96 overflow-auto text-xs">
          {JSON.stringify(family.jsonSchema, null, 2)}
        </pre>
      </Panel>
    </Shell>
  );
}
