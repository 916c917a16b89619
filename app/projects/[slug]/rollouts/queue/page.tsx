import Link from "next/link";
import { projectPage } from "@/lib/api/page-guard";
import { DomainError } from "@/lib/errors";
import { annotationQueue, QUEUE_SIZE, type AnnotationQueue } from "@/lib/annotation-queue/queue";
import { getRolloutHeader } from "@/lib/rollouts/read";
import { explorerFilters } from "@/lib/rollouts/list";
import { readTurnPage } from "@/lib/rollouts/turns";
import { TURNS_PER_REQUEST } from "@/lib/rollouts/turn-types";
import { verifierSummary } from "@/lib/rollouts/verifier-summary";
import { listAnnotations, listLabels } from "@/lib/annotations/service";
import { hasScope } from "@/lib/auth/roles";
import { Panel, Shell } from "@/components/ui/shell";
import { Tile } from "@/components/ui/tile";
import { count, fixed } from "@/components/ui/format";
import { ShortcutHelp } from "@/components/ui/shortcuts";
import { TrajectoryViewer } from "@/components/rollouts/trajectory-viewer";
import { AnnotationPanel } from "@/components/rollouts/annotation-panel";
import { AnnotationQueueControls } from "@/components/annotations/annotation-queue";
import { QueueLocks } from "@/components/annotations/queue-locks";
import { listLocks } from "@/lib/annotation-queue/locks";

export const dynamic = "force-dynamic";

export async function generateMetadata({ params }: { params: Promise<{ slug: string }> }) {
  return { title: `Annotation queue · ${(await params).slug}` };
}

const SHORTCUTS = [
  { keys: "n / p", description: "next / previous rollout of the queue (the lock moves with you)" },
  { keys: "1 – 9", description: "apply the project's label of that number" },
  { keys: "j / k", description: "next / previous turn of the trajectory" },
  { keys: "/", description: "search in the trajectory" },
  { keys: "Esc", description: "leave a field (keys pause while you type)" },
  { keys: "?", description: "this list" },
];

/**
 * The annotation queue over the explorer's current filter (the same URL parameters): one rollout at a time,
 * locked to the reviewer while they are on it, with its outcome, verifier summary and trajectory.
 */
export default async function AnnotationQueuePage({
  params,
  searchParams,
}: {
  params: Promise<{ slug: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { slug } = await params;
  const raw = await searchParams;
  const filters = explorerFilters(raw, ["at", "cursor", "limit", "format"]);
  const atParam = Array.isArray(raw.at) ? raw.at[0] : raw.at;
  const { user, db, project } = await projectPage(slug, `/projects/${slug}/rollouts/queue`);
  const base = `/projects/${encodeURIComponent(slug)}`;
  const filterQuery = new URLSearchParams(filters).toString();
  let queue: AnnotationQueue = { rolloutIds: [], annotated: [], total: 0, done: 0, truncated: false };
  let problem: string | null = null;
  try {
    queue = await annotationQueue(db, project, filters);
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    problem = err.details[0]?.path ? `${err.details[0].path.replace(/^query\./, "")}: ${err.details[0].message}` : err.message;
  }
  const at = atParam !== undefined && queue.rolloutIds.includes(Number(atParam)) ? Number(atParam) : null;
  const canWrite = hasScope(user.role, "annotations:write");
  const inQueue = new Set(queue.rolloutIds);
  const [{ labels }, shown, { locks }] = await Promise.all([
    listLabels(db, project),
    at === null
      ? null
      : Promise.all([getRolloutHeader(db, at, user), readTurnPage(db, at, 0, TURNS_PER_REQUEST), listAnnotations(db, at, user)]).then(
          ([header, first, { annotations }]) => ({ header, first, annotations }),
        ),
    listLocks(db, project),
  ]);
  // other reviewers' live locks on this queue's rollouts (the caller's own lock is the rollout shown)
  const othersLocks = locks.filter((l) => inQueue.has(l.rolloutId) && l.owner !== user.actor);
  const r = shown?.header;
  const verifier = r?.verifierOutput ? verifierSummary(r.verifierOutput) : null;
  const percent = queue.total === 0 ? 0 : Math.round((queue.done / queue.total) * 100);
  return (
    <Shell
      user={user}
      crumbs={[
        { href: "/", label: "Projects" },
        { href: base, label: project.name },
        { href: `${base}/rollouts${filterQuery ? `?${filterQuery}` : ""}`, label: "Rollouts" },
        { label: "Annotation queue" },
      ]}
      actions={<ShortcutHelp shortcuts={SHORTCUTS} />}
    >
      <div className="mb-3 flex flex-wrap items-baseline gap-3">
        <h1 className="text-lg font-semibold">Annotation queue</h1>
        <span className="text-sm text-zinc-500" data-testid="queue-filter">
          {filterQuery
            ? `filter: ${decodeURIComponent(filterQuery.replace(/\+/g, " ")).replace(/&/g, " · ")}`
            : "every rollout of the project"}
        </span>
        <span className="ml-auto flex items-center gap-2 text-sm" data-testid="queue-progress">
          <span className="num font-medium">
            {count(queue.done)} / {count(queue.total)} annotated
          </span>
          <span className="h-2 w-32 overflow-hidden rounded bg-zinc-200" aria-hidden>
            <span className="block h-full bg-indigo-600" style={{ width: `${percent}%` }} />
          </span>
        </span>
      </div>
      {queue.truncated && (
        <p className="mb-3 text-xs text-zinc-500">
          The filter matches more than {count(QUEUE_SIZE)} rollouts: this queue holds the first {count(QUEUE_SIZE)} in the explorer&apos;s
          order. Narrow the filter for the rest.
        </p>
      )}
      {problem && (
        <p role="alert" className="mb-3 rounded border border-amber-300 bg-amber-50 p-2 text-sm text-amber-900">
          {problem}
        </p>
      )}
      {!problem && queue.total === 0 && (
        <p className="mb-3 text-sm text-zinc-500" data-testid="queue-empty">
          No rollout matches this filter. <Link href={`${base}/rollouts`}>Back to the explorer</Link>.
        </p>
      )}
      {!canWrite && (
        <p className="mb-3 text-xs text-zinc-500">
          Your role ({user.role}) may read the queue but not annotate: no rollout is locked for you.
        </p>
      )}
      {queue.total > 0 && (
        <Panel title={r ? `Rollout ${r.id}` : "Finding a free rollout…"} className="mb-3">
          <AnnotationQueueControls
            slug={slug}
            queue={queue.rolloutIds}
            annotated={queue.annotated}
            at={at}
            filterQuery={filterQuery}
            labels={labels.map((l) => l.name)}
            canWrite={canWrite}
          />
        </Panel>
      )}
      {othersLocks.length > 0 && (
        <Panel title={`Being reviewed by others (${count(othersLocks.length)})`} className="mb-3">
          <QueueLocks
            key={othersLocks.map((l) => `${l.rolloutId}:${l.owner}`).join(",")}
            slug={slug}
            locks={othersLocks.map((l) => ({ ...l, expiresAt: l.expiresAt.toISOString() }))}
            canBreak={hasScope(user.role, "projects:manage")}
          />
        </Panel>
      )}
      {r && shown && (
        <>
          <div className="mb-3 flex flex-wrap items-baseline gap-3" data-testid="queue-rollout">
            <span
              className={`rounded px-1.5 py-0.5 text-xs font-medium ${r.success ? "bg-green-100 text-green-800" : "bg-red-100 text-red-800"}`}
            >
              {r.success ? "PASS" : "FAIL"}
            </span>
            <span className="font-mono text-sm">{r.environmentKey}</span>
            <span className="text-zinc-500">
              generation {r.generation} · {r.policy}
            </span>
            <Link href={`${base}/rollouts/${r.id}`} className="ml-auto text-xs text-blue-700 hover:underline">
              Open the rollout page →
            </Link>
          </div>
          <div className="mb-3 grid grid-cols-2 gap-2 md:grid-cols-5">
            <Tile label="Reward" value={fixed(r.reward, 3)} />
            <Tile
              label="Tests passed"
              value={r.testsPassed === null ? "—" : `${count(r.testsPassed)} / ${count((r.testsPassed ?? 0) + (r.testsFailed ?? 0))}`}
            />
            <Tile label="Turns" value={count(r.turns)} />
            <Tile label="Category" value={r.failureCategory ?? "—"} />
            <Tile label="Status" value={r.status} />
          </div>
          {verifier && (
            <Panel title="Verifier" className="mb-3">
              {verifier.headline && (
                <div className="mb-1 font-mono text-xs text-zinc-700" data-testid="queue-verifier-headline">
                  {verifier.headline}
                </div>
              )}
              <pre tabIndex={0} className="max-h-48 overflow-auto whitespace-pre-wrap break-all rounded bg-zinc-50 p-2 font-mono text-xs">
                {verifier.summary}
              </pre>
            </Panel>
          )}
          <Panel title={`Annotations (${shown.annotations.length})`} className="mb-3">
            <AnnotationPanel
              rolloutId={r.id}
              slug={slug}
              labels={labels.map((l) => l.name)}
              annotations={shown.annotations.map((a) => ({ ...a, createdAt: a.createdAt.toISOString() }))}
              canWrite={false}
              actor={user.actor}
              isAdmin={user.role === "admin"}
            />
          </Panel>
          <Panel title={`Trajectory (${count(shown.first.total)} message${shown.first.total === 1 ? "" : "s"})`}>
            {shown.first.total === 0 ? (
              <p className="text-zinc-500">This rollout carries no trajectory.</p>
            ) : (
              <TrajectoryViewer
                rolloutId={r.id}
                initial={shown.first}
                turnAnnotations={shown.annotations
                  .filter((a) => a.turn !== null)
                  .map((a) => ({ ...a, createdAt: a.createdAt.toISOString() }))}
              />
            )}
          </Panel>
        </>
      )}
    </Shell>
  );
}
