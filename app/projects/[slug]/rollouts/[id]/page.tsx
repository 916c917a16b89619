import Link from "next/link";
import { notFound } from "next/navigation";
import { orNotFound, projectPage } from "@/lib/api/page-guard";
import { getRolloutHeader } from "@/lib/rollouts/read";
import { readTurnPage } from "@/lib/rollouts/turns";
import { TURNS_PER_REQUEST } from "@/lib/rollouts/turn-types";
import { verifierSummary } from "@/lib/rollouts/verifier-summary";
import { newestAttemptWithOutcome } from "@/lib/generations/environment-detail";
import { Panel, Shell } from "@/components/ui/shell";
import { Tile } from "@/components/ui/tile";
import { Table } from "@/components/ui/table";
import { bytes, count, fixed } from "@/components/ui/format";
import { TrajectoryViewer } from "@/components/rollouts/trajectory-viewer";
import { ShortcutHelp } from "@/components/ui/shortcuts";
import { DAMAGE_LABELS, parseVerifierOutput } from "@/lib/analytics/failures";
import { behaviourLabel } from "@/lib/analytics/behaviours";
import type { EnvironmentDamage } from "@/lib/analytics/blame";
import { hasScope } from "@/lib/auth/roles";
import { listAnnotations, listLabels } from "@/lib/annotations/service";
import { AnnotationPanel } from "@/components/rollouts/annotation-panel";
import { readRolloutTimeline } from "@/lib/rollouts/timeline";
import { StepTimeline } from "@/components/rollouts/step-timeline";

export const dynamic = "force-dynamic";

export async function generateMetadata({ params }: { params: Promise<{ slug: string; id: string }> }) {
  const p = await params;
  return { title: `Rollout ${p.id} · ${p.slug}` };
}

const SHORTCUTS = [
  { keys: "j / k", description: "next / previous turn (kept in view)" },
  { keys: "/", description: "search in the trajectory" },
  { keys: "Enter / Shift+Enter", description: "next / previous match (in the search field)" },
  { keys: "Esc", description: "leave the search field" },
  { keys: "?", description: "this list" },
];

/** Show at most this much verifier output inline (it is capped at 64 KB when stored). */
const VERIFIER_INLINE = 64 * 1024;

/** One rollout: outcome, error, verifier output, metadata and the trajectory viewer. */
export default async function RolloutPage({ params }: { params: Promise<{ slug: string; id: string }> }) {
  const { slug, id } = await params;
  const rid = Number(id);
  if (!Number.isInteger(rid) || rid <= 0) notFound();
  const { user, db, project } = await projectPage(slug, `/projects/${slug}/rollouts/${id}`);
  const r = await orNotFound(getRolloutHeader(db, rid, user));
  if (r.projectId !== project.id) notFound();
  const base = `/projects/${encodeURIComponent(slug)}`;
  const envHref = `${base}/environments/${encodeURIComponent(r.environmentKey)}`;
  // the reads are independent: one round of queries, not three; the first screen is one stored page of turns
  const [first, counterpart, { labels }, { annotations }, timeline] = await Promise.all([
    readTurnPage(db, rid, 0, TURNS_PER_REQUEST),
    newestAttemptWithOutcome(db, project, r.environmentKey, !r.success),
    listLabels(db, project),
    listAnnotations(db, rid, user),
    readRolloutTimeline(db, rid),
  ]);
  const duration = r.startedAt && r.finishedAt ? (r.finishedAt.getTime() - r.startedAt.getTime()) / 1000 : null;
  const meta = (r.metadata ?? {}) as Record<string, unknown>;
  const report = r.verifierOutput ? parseVerifierOutput(r.verifierOutput) : null;
  const verifier = r.verifierOutput ? verifierSummary(r.verifierOutput) : null;
  const rewards = meta.rewards && typeof meta.rewards === "object" ? Object.entries(meta.rewards as Record<string, number | null>) : [];
  const damage = Array.isArray(meta.environmentDamage) ? (meta.environmentDamage as EnvironmentDamage[]) : [];
  const steps = Array.isArray(meta.steps) ? (meta.steps as StepView[]) : [];
  const problems = Array.isArray(meta.problems) ? (meta.problems as string[]) : [];
  return (
    <Shell
      user={user}
      crumbs={[
        { href: "/", label: "Projects" },
        { href: `/projects/${slug}`, label: project.name },
        { href: `${base}/generations/${r.generation}`, label: `Generation ${r.generation}` },
        { href: envHref, label: r.environmentKey },
        { label: `Rollout ${rid}` },
      ]}
      actions={<ShortcutHelp shortcuts={SHORTCUTS} />}
    >
      <div className="mb-3 flex flex-wrap items-baseline gap-3">
        <h1 className="text-lg font-semibold">Rollout {rid}</h1>
        <span
          className={`rounded px-1.5 py-0.5 text-xs font-medium ${r.success ? "bg-green-100 text-green-800" : "bg-red-100 text-red-800"}`}
          data-testid="rollout-outcome"
        >
          {r.success ? "PASS" : "FAIL"}
        </span>
        <span className="text-zinc-500">{r.policy}</span>
        {r.trialName && (
          <span className="font-mono text-sm text-zinc-700" data-testid="trial-name" title="the source's name of this run (Harbor trial)">
            {r.trialName}
          </span>
        )}
        <span className="font-mono text-xs text-zinc-500">{r.externalId}</span>
        {counterpart !== null ? (
          <Link
            href={`${envHref}/compare?${r.success ? `a=${rid}&b=${counterpart}` : `a=${counterpart}&b=${rid}`}`}
            className="ml-auto text-xs text-blue-700 hover:underline"
            data-testid="compare-link"
          >
            Compare with a {r.success ? "failing" : "passing"} attempt →
          </Link>
        ) : (
          <span className="ml-auto text-xs text-zinc-500" data-testid="compare-none">
            No {r.success ? "failing" : "passing"} attempt of this environment to compare with
          </span>
        )}
      </div>
      <div className="mb-3 grid grid-cols-2 gap-2 md:grid-cols-7">
        <Tile label="Reward" value={fixed(r.reward, 3)} />
        <Tile
          label="Tests passed"
          value={r.testsPassed === null ? "—" : `${count(r.testsPassed)} / ${count((r.testsPassed ?? 0) + (r.testsFailed ?? 0))}`}
          hint="partial credit: tests the verifier reported passed, of those it ran (CTRF report, else pytest's summary)"
        />
        <Tile label="Status" value={r.status} />
        <Tile label="Turns" value={count(r.turns)} />
        <Tile label="Input tokens" value={count(r.inputTokens)} />
        <Tile label="Output tokens" value={count(r.outputTokens)} />
        <Tile label="Duration" value={duration === null ? "—" : `${duration.toFixed(1)} s`} />
      </div>
      {(report?.summaryLine || (report && report.failedTests.length > 0)) && (
        <Panel title="Tests" className="mb-3">
          <div data-testid="pytest-summary" className="text-sm">
            {report.summaryLine && <div className="break-all font-mono text-xs">{report.summaryLine}</div>}
            {report.failedTests.length > 0 && (
              <ul className="mt-1 list-disc break-all pl-5 font-mono text-xs text-red-800">
                {report.failedTests.slice(0, 30).map((t) => (
                  <li key={t}>{t}</li>
                ))}
                {report.failedTests.length > 30 && <li>… {report.failedTests.length - 30} more</li>}
              </ul>
            )}
          </div>
        </Panel>
      )}
      {rewards.length > 1 && (
        <Panel title="Rewards" className="mb-3">
          <div className="flex flex-wrap gap-3 text-sm" data-testid="rollout-rewards">
            {rewards.map(([k, v]) => (
              <span key={k}>
                <span className="text-zinc-500">{k}</span>{" "}
                <span className={`font-mono ${k === meta.rewardKey ? "font-semibold" : ""}`}>{fixed(v, 3)}</span>
              </span>
            ))}
            <span className="text-xs text-zinc-500">the headline reward is “{String(meta.rewardKey ?? "reward")}”</span>
          </div>
        </Panel>
      )}
      {(r.failureCategory || r.errorType) && (
        <Panel title="Failure" className="mb-3">
          <div className="text-sm" data-testid="rollout-failure">
            {r.failureCategory && (
              <div>
                <span className="text-zinc-500">category</span> <span className="font-medium">{r.failureCategory}</span>
              </div>
            )}
            {r.failureSignature && (
              <div className="break-all">
                <span className="text-zinc-500">signature</span> <span className="font-mono text-xs">{r.failureSignature}</span>
              </div>
            )}
            {r.errorType && (
              <div className="mt-1 break-all">
                <span className="font-mono text-red-700">{r.errorType}</span>:{" "}
                <span className="font-mono text-xs">{(r.errorMessage ?? "").slice(0, 4000)}</span>
              </div>
            )}
            {damage.length > 0 && (
              <div className="mt-2" data-testid="environment-damage">
                <div className="text-zinc-500">the agent broke its environment:</div>
                <ul className="list-disc pl-5 text-xs">
                  {damage.slice(0, 5).map((d) => (
                    <li key={`${d.step}-${d.message ?? ""}-${d.kind}`}>
                      step {d.step}
                      {typeof d.message === "number" && (
                        <>
                          {" "}
                          (
                          <a href={`#turn-${d.message}`} className="num underline">
                            message #{d.message}
                          </a>
                          )
                        </>
                      )}
                      : {DAMAGE_LABELS[d.kind] ?? d.kind}
                      {d.exitCode !== null ? ` (exit ${d.exitCode})` : ""} — <span className="font-mono">{d.command}</span>
                    </li>
                  ))}
                </ul>
              </div>
            )}
            {r.behaviours && r.behaviours.length > 0 && (
              <div className="mt-1 text-xs text-zinc-500">behaviours: {r.behaviours.map(behaviourLabel).join(", ")}</div>
            )}
            {r.flags && r.flags.length > 0 && <div className="mt-1 text-xs text-zinc-500">flags: {r.flags.join(", ")}</div>}
            {problems.length > 0 && <div className="mt-1 text-xs text-amber-700">read problems: {problems.join("; ")}</div>}
          </div>
        </Panel>
      )}
      {r.verifierOutput && verifier && (
        <details className="mb-3 rounded-md border border-zinc-200 bg-white" data-testid="verifier-details">
          <summary className="cursor-pointer px-3 py-2 text-sm text-zinc-800">
            <span className="font-semibold">Verifier output</span>
            {verifier.headline && (
              <span className="ml-2 font-mono text-xs text-zinc-700" data-testid="verifier-headline">
                {verifier.headline}
              </span>
            )}
            <span className="ml-2 text-xs text-zinc-500">({count(r.verifierOutput.length)} chars)</span>
          </summary>
          <div className="border-t border-zinc-100 p-3">
            <h3 className="mb-1 text-xs font-semibold text-zinc-600">Summary (the end of the output)</h3>
            <pre
              tabIndex={0}
              className="max-h-60 overflow-auto whitespace-pre-wrap break-all rounded bg-zinc-50 p-2 font-mono text-xs"
              data-testid="verifier-summary"
            >
              {verifier.summary}
            </pre>
            <details className="mt-2">
              <summary className="cursor-pointer text-xs text-zinc-600">Full output</summary>
              <pre
                tabIndex={0}
                className="mt-1 max-h-96 overflow-auto whitespace-pre-wrap break-all font-mono text-xs"
                data-testid="verifier-output"
              >
                {r.verifierOutput.slice(0, VERIFIER_INLINE)}
              </pre>
            </details>
          </div>
        </details>
      )}
      {steps.length > 0 && (
        <Panel title={`Steps (${steps.length})`} className="mb-3">
          <Table
            size="sm"
            numeric
            testId="trial-steps"
            rows={steps}
            rowKey={(st) => st.name}
            columns={[
              { key: "name", header: "Step", cell: (st) => st.name, className: "font-mono text-xs" },
              { key: "reward", header: "Reward", align: "right", cell: (st) => fixed(st.reward ?? null, 3) },
              {
                key: "tests",
                header: "Tests passed",
                align: "right",
                cell: (st) => (st.tests ? `${st.tests.passed} / ${st.tests.passed + st.tests.failed}` : "—"),
              },
              { key: "turns", header: "Turns", align: "right", cell: (st) => count(st.turns ?? null) },
              { key: "input", header: "Input tokens", align: "right", cell: (st) => count(st.inputTokens ?? null) },
              { key: "output", header: "Output tokens", align: "right", cell: (st) => count(st.outputTokens ?? null) },
              { key: "error", header: "Error", cell: (st) => st.error?.type ?? "", className: "font-mono text-xs text-red-700" },
            ]}
          />
        </Panel>
      )}
      {r.metadata !== null && typeof r.metadata === "object" && Object.keys(r.metadata).length > 0 && (
        <details className="mb-3 rounded-md border border-zinc-200 bg-white">
          <summary className="cursor-pointer px-3 py-2 text-sm font-semibold text-zinc-800">Metadata</summary>
          <pre tabIndex={0} className="max-h-72 overflow-auto whitespace-pre-wrap break-all border-t border-zinc-100 p-3 font-mono text-xs">
            {JSON.stringify(r.metadata, null, 2).slice(0, 64 * 1024)}
          </pre>
        </details>
      )}
      {(timeline.phases.length > 0 || timeline.steps.length > 1 || timeline.costUsd !== null) && (
        <Panel title="Timeline" className="mb-3">
          <StepTimeline timeline={timeline} />
        </Panel>
      )}
      <Panel title="Annotations" className="mb-3">
        <AnnotationPanel
          rolloutId={rid}
          slug={slug}
          labels={labels.map((l) => l.name)}
          annotations={annotations.map((a) => ({ ...a, createdAt: a.createdAt.toISOString() }))}
          canWrite={hasScope(user.role, "annotations:write")}
          actor={user.actor}
          isAdmin={user.role === "admin"}
        />
      </Panel>
      <Panel
        title={
          `Trajectory (${count(first.total)} message${first.total === 1 ? "" : "s"}` +
          `${r.trajectoryBytes ? `, ${bytes(r.trajectoryBytes)} stored compressed` : ""})`
        }
      >
        {first.total === 0 ? (
          <p className="text-zinc-500">This rollout carries no trajectory.</p>
        ) : (
          <TrajectoryViewer
            rolloutId={rid}
            initial={first}
            turnAnnotations={annotations.filter((a) => a.turn !== null).map((a) => ({ ...a, createdAt: a.createdAt.toISOString() }))}
          />
        )}
      </Panel>
    </Shell>
  );
}

/** One step of a multi-step trial as the Harbor reader records it (metadata.steps). */
interface StepView {
  name: string;
  reward?: number;
  tests?: { passed: number; failed: number };
  turns?: number;
  inputTokens?: number;
  outputTokens?: number;
  error?: { type: string; message: string };
}
