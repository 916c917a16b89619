import Link from "next/link";
import { projectPage } from "@/lib/api/page-guard";
import { AUDIT_ACTIONS, auditFacets, auditQuerySchema, listAudit } from "@/lib/audit";
import { Panel, Shell } from "@/components/ui/shell";
import { Table } from "@/components/ui/table";
import { dateTime } from "@/components/ui/format";
import { Field, fieldClass } from "@/components/ui/form";
import { Button, buttonClass } from "@/components/ui/button";
import { AuditChange } from "@/components/audit/audit-change";
import { auditEntityHref } from "@/components/audit/entity-link";

export const dynamic = "force-dynamic";

type Filters = { actor?: string; action?: string; entity?: string; entityId?: string };

/** This page's URL with the given filters (and cursor), dropping empty ones. */
function auditUrl(slug: string, filters: Filters & { cursor?: string }): string {
  const qs = new URLSearchParams(Object.entries(filters).filter((e): e is [string, string] => Boolean(e[1]))).toString();
  return `/projects/${slug}/audit${qs ? `?${qs}` : ""}`;
}

/** The project's append-only audit log, newest first, filtered by actor, action and entity through the URL. */
export default async function AuditPage({
  params,
  searchParams,
}: {
  params: Promise<{ slug: string }>;
  searchParams: Promise<Record<string, string | undefined>>;
}) {
  const { slug } = await params;
  const { user, db, project } = await projectPage(slug, `/projects/${slug}/audit`, "audit:read");
  // a hand-edited URL with an unknown action shows everything rather than failing the page
  const parsed = auditQuerySchema.safeParse(await searchParams);
  const query = parsed.success ? parsed.data : { limit: 100 };
  const { cursor, ...rest } = query as { cursor?: string; limit: number } & Filters;
  const filters: Filters = { actor: rest.actor, action: rest.action, entity: rest.entity, entityId: rest.entityId };
  const [page, facets] = await Promise.all([listAudit(db, project.id, cursor, 100, filters), auditFacets(db, project.id)]);
  const filtered = Object.values(filters).some(Boolean);
  return (
    <Shell
      user={user}
      crumbs={[{ href: "/", label: "Projects" }, { href: `/projects/${slug}`, label: project.name }, { label: "Audit log" }]}
    >
      <h1 className="mb-3 text-xl font-semibold">Audit log</h1>
      <form
        method="get"
        action={`/projects/${slug}/audit`}
        className="mb-3 flex flex-wrap items-end gap-2 rounded-md border border-zinc-200 bg-white p-3"
        data-testid="audit-filters"
      >
        <Field label="Actor">
          <select name="actor" defaultValue={filters.actor ?? ""} className={fieldClass}>
            <option value="">any</option>
            {facets.actors.map((a) => (
              <option key={a}>{a}</option>
            ))}
          </select>
        </Field>
        <Field label="Action">
          <select name="action" defaultValue={filters.action ?? ""} className={fieldClass}>
            <option value="">any</option>
            {AUDIT_ACTIONS.map((a) => (
              <option key={a}>{a}</option>
            ))}
          </select>
        </Field>
        <Field label="Entity">
          <select name="entity" defaultValue={filters.entity ?? ""} className={fieldClass}>
            <option value="">any</option>
            {facets.entities.map((e) => (
              <option key={e}>{e}</option>
            ))}
          </select>
        </Field>
        <Field label="Entity id">
          <input name="entityId" defaultValue={filters.entityId ?? ""} className={`${fieldClass} w-32`} />
        </Field>
        <Button type="submit" variant="primary">
          Filter
        </Button>
        {filtered && (
          <Link href={auditUrl(slug, {})} className={buttonClass("ghost")}>
            Clear filters
          </Link>
        )}
      </form>
      <Panel>
        <Table
          size="sm"
          testId="audit-table"
          caption="Audit events, newest first"
          rows={page.events}
          rowKey={(e) => e.id}
          rowProps={() => ({ "data-testid": "audit-row" })}
          empty={filtered ? "No event matches these filters." : "Nothing has been recorded yet."}
          columns={[
            {
              key: "at",
              header: "At",
              cell: (e) => dateTime(e.at, { seconds: true }),
              className: "num whitespace-nowrap text-xs text-zinc-600",
            },
            {
              key: "actor",
              header: "Actor",
              cell: (e) => (
                <Link href={auditUrl(slug, { ...filters, actor: e.actor })} className="hover:underline" title="Only this actor's events">
                  {e.actor}
                </Link>
              ),
            },
            { key: "action", header: "Action", cell: (e) => e.action, className: "font-mono text-xs" },
            {
              key: "entity",
              header: "Entity",
              cell: (e) => {
                const href = auditEntityHref(slug, e);
                const label = `${e.entity} ${e.entityId.length > 14 ? `${e.entityId.slice(0, 12)}…` : e.entityId}`;
                return (
                  <span className="flex flex-wrap items-baseline gap-x-2">
                    {href ? (
                      <Link href={href} className="underline" data-testid="audit-entity-link" title={`${e.entity} ${e.entityId}`}>
                        {label}
                      </Link>
                    ) : (
                      <span title={`${e.entity} ${e.entityId}`}>{label}</span>
                    )}
                    <Link
                      href={auditUrl(slug, { entity: e.entity, entityId: e.entityId })}
                      className="inline-block py-1 text-zinc-600 hover:underline"
                      aria-label={`History of ${e.entity} ${e.entityId}`}
                    >
                      history
                    </Link>
                  </span>
                );
              },
              className: "font-mono text-xs whitespace-nowrap",
            },
            { key: "change", header: "Before / after", cell: (e) => <AuditChange before={e.before} after={e.after} /> },
          ]}
        />
        {page.nextCursor && (
          <Link href={auditUrl(slug, { ...filters, cursor: page.nextCursor })} className="mt-2 inline-block text-sm underline">
            Older
          </Link>
        )}
      </Panel>
    </Shell>
  );
}
