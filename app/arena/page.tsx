import { getDb } from "@/lib/db/client";
import { requireUser } from "@/lib/api/page-guard";
import { hasScope } from "@/lib/auth/roles";
import { latestArenaReport, listArenaRuns } from "@/lib/arena-runs/service";
import { Shell } from "@/components/ui/shell";
import { ArenaView } from "@/components/arena/arena-view";

export const dynamic = "force-dynamic";
export const metadata = { title: "Curriculum arena" };

/** The curriculum arena: strategies compared on the simulated learner, with and without traps. */
export default async function ArenaPage() {
  const user = await requireUser("/arena");
  const db = getDb();
  const [latest, runs] = await Promise.all([latestArenaReport(db), listArenaRuns(db, 5)]);
  const active = runs.find((r) => r.status === "queued" || r.status === "running") ?? null;
  return (
    <Shell user={user} crumbs={[{ label: "Curriculum arena" }]}>
      <h1 className="mb-1 text-xl font-semibold">Curriculum arena</h1>
      <p className="mb-3 max-w-4xl text-sm text-zinc-600">
        Curriculum strategies train the same simulated learner on a family&apos;s config space; the curves show success on a held-out hard
        target region against rollouts spent (probes included), as interquartile means over seeds. &quot;Traps&quot; adds unsolvable
        configs, noisy TVs and invalid configs.
      </p>
      <ArenaView latest={latest} canRun={hasScope(user.role, "proposals:create")} active={active} />
    </Shell>
  );
}
