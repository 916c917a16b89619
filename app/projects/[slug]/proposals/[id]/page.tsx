import { notFound } from "next/navigation";
import { orNotFound, projectPage } from "@/lib/api/page-guard";
import { getProposalView } from "@/lib/proposals";
import { filtersFromParams, ITEMS_PAGE, reviewOrder } from "@/components/proposals/review-order";
import { Shell } from "@/components/ui/shell";
import { ProposalView } from "@/components/proposals/proposal-view";
import { ShortcutHelp } from "@/components/ui/shortcuts";
import { hasScope } from "@/lib/auth/roles";

export const dynamic = "force-dynamic";

const SHORTCUTS = [
  { keys: "j / k", description: "next / previous item" },
  { keys: "a", description: "approve the item and move on" },
  { keys: "r", description: "reject the item and move on" },
  { keys: "e", description: "edit the config of a mutate or add item" },
  { keys: "u", description: "undo your last change (a bulk action as a whole), after a reload too" },
  { keys: "h", description: "show or hide the item's history" },
  { keys: "o", description: "show or hide an item's diff" },
  { keys: "?", description: "this list" },
];

export async function generateMetadata({ params }: { params: Promise<{ slug: string; id: string }> }) {
  const p = await params;
  return { title: `Proposal ${p.id.slice(0, 8)} · ${p.slug}` };
}

/**
 * One proposal: the run's progress, then its items and what the engineer saw. The page receives every item as an index
 * entry and the first page of the list (in the URL's filters) in full; the list reads the details of the rest as it
 * renders them. (A 15,000-item proposal in full made a 16.7 MB page whose first byte came after 1.4-3.2 s: issue 19.)
 */
export default async function ProposalPage({
  params,
  searchParams,
}: {
  params: Promise<{ slug: string; id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { slug, id } = await params;
  const query = await searchParams;
  const filters = filtersFromParams((key) => {
    const v = query[key];
    return Array.isArray(v) ? v[0] : v;
  });
  const { user, db, project } = await projectPage(slug, `/projects/${slug}/proposals/${id}`);
  const proposal = await orNotFound(
    getProposalView(db, id, user, {
      index: (entries) =>
        reviewOrder(entries, filters)
          .slice(0, ITEMS_PAGE)
          .map((e) => e.id),
    }),
  );
  if (proposal.project !== project.slug) notFound();
  return (
    <Shell
      user={user}
      crumbs={[
        { href: "/", label: "Projects" },
        { href: `/projects/${slug}`, label: project.name },
        { href: `/projects/${slug}/generations/${proposal.baseGeneration}`, label: `Generation ${proposal.baseGeneration}` },
        { label: `Proposal ${id.slice(0, 8)}` },
      ]}
      actions={<ShortcutHelp shortcuts={SHORTCUTS} />}
    >
      <ProposalView initial={proposal} canReview={hasScope(user.role, "proposals:review")} />
    </Shell>
  );
}
