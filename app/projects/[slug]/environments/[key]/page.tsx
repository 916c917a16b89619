import Link from "next/link";
import { orNotFound, projectPage } from "@/lib/api/page-guard";
import { environmentAttempts, environmentDetail } from "@/lib/generations/environment-detail";
import { Panel, Shell } from "@/components/ui/shell";
import { Tile } from "@/components/ui/tile";
import { buttonClass } from "@/components/ui/button";
import { Table } from "@/components/ui/table";
import { count, fixed, formatValue, passAtKShown, pct, LEARNABILITY_HELP } from "@/components/ui/format";
import { AttemptList } from "@/components/rollouts/attempt-list";
import { ShortcutHelp } from "@/components/ui/shortcuts";
import { TaskPanel } from "@/components/tasks/task-panel";

export const dynamic = "force-dynamic";

export async function generateMetadata({ params }: { params: Promise<{ slug: string; key: string }> }) {
  const p = await params;
  return { title: `${decodeURIComponent(p.key)} · ${p.slug}` };
}

const SHORTCUTS = [
  { keys: "j / k", description: "next / previous attempt" },
  { keys: "Enter", description: "open the selected attempt" },
  { keys: "?", description: "this list" },
];

function show(v: unknown): string {
  if (v === "") return '""';
  return formatValue(v);
}

/** One environment: config, validation, lineage, results by generation and policy, attempts. */
export default async function EnvironmentPage({ params }: { params: Promise<{ slug: string; key: string }> }) {
  const { slug, key: rawKey } = await params;
  const key = decodeURIComponent(rawKey);
  const { user, db, project } = await projectPage(slug, `/projects/${slug}/environments/${rawKey}`);
  const env = await orNotFound(environmentDetail(db, project, key));
  const attempts = await environmentAttempts(db, project, key);
  const base = `/projects/${encodeURIComponent(slug)}`;
  const envHref = (k: string) => `${base}/environments/${encodeURIComponent(k)}`;
  const totals = env.results.reduce((acc, r) => ({ n: acc.n + r.rollouts, s: acc.s + r.successes }), { n: 0, s: 0 });
  const chain = [...env.lineage].reverse(); // root first
  return (
    <Shell
      user={user}
      crumbs={[{ href: "/", label: "Projects" }, { href: `/projects/${slug}`, label: project.name }, { label: key }]}
      actions={<ShortcutHelp shortcuts={SHORTCUTS} />}
    >
      <div className="mb-3 flex flex-wrap items-baseline gap-3">
        <h1 className="font-mono text-lg font-semibold">{env.key}</h1>
        <span className="rounded bg-zinc-100 px-1.5 py-0.5 text-xs text-zinc-600">{env.op}</span>
        {env.direction && <span className="text-zinc-500">direction {env.direction}</span>}
        <span className="text-xs text-zinc-500">hash {env.configHash.slice(0, 12)}</span>
        {env.compareDefault.passing && env.compareDefault.failing && (
          <Link href={`${envHref(env.key)}/compare`} className={buttonClass("primary", "sm", "ml-auto")} data-testid="open-compare">
            Compare a passing and a failing attempt →
          </Link>
        )}
      </div>
      <div className="mb-3 grid grid-cols-2 gap-2 md:grid-cols-4">
        <Tile label="Rollouts" value={count(totals.n)} />
        <Tile label="Success rate" value={pct(totals.n ? totals.s / totals.n : null)} />
        <Tile label="Validation" value={env.validation.state} />
        <Tile label="p_max" value={fixed(env.validation.pMax, 3)} hint="best achievable success rate, where a validator estimated it" />
      </div>
      {(env.validation.details as { by?: string; verifierOutput?: string | null } | null)?.by === "harbor-oracle" &&
        env.validation.state === "invalid" && (
          <Panel title="Harbor's oracle could not solve this task" className="mb-3">
            <pre
              tabIndex={0}
              className="max-h-64 overflow-auto whitespace-pre-wrap font-mono text-xs text-red-800"
              data-testid="oracle-output"
            >
              {(env.validation.details as { verifierOutput?: string | null }).verifierOutput ?? "(no verifier output)"}
            </pre>
          </Panel>
        )}
      <TaskPanel db={db} project={project} envKey={key} />
      <div className="mb-3 grid grid-cols-1 gap-3 lg:grid-cols-2">
        <Panel title="Config">
          <Table
            size="xs"
            testId="environment-config"
            rows={Object.entries((env.config ?? {}) as Record<string, unknown>)}
            rowKey={([k]) => k}
            empty="This environment has an empty config."
            columns={[
              { key: "field", header: "Field", cell: ([k]) => k, className: "font-mono text-zinc-500" },
              { key: "value", header: "Value", cell: ([, v]) => show(v), className: "break-all font-mono" },
            ]}
          />
        </Panel>
        <Panel title="Lineage">
          <ol className="space-y-1 text-xs" data-testid="lineage">
            {chain.map((a, i) => (
              <li key={a.key} style={{ paddingLeft: `${i * 14}px` }}>
                <Link href={envHref(a.key)} className="font-mono hover:underline">
                  {a.key}
                </Link>{" "}
                <span className="text-zinc-500">
                  {a.op}
                  {a.direction ? ` · ${a.direction}` : ""}
                </span>
              </li>
            ))}
            <li style={{ paddingLeft: `${chain.length * 14}px` }}>
              <span className="font-mono font-semibold">{env.key}</span>{" "}
              <span className="text-zinc-500">
                {env.op}
                {env.direction ? ` · ${env.direction}` : ""} (this)
              </span>
            </li>
            {env.children.map((c) => (
              <li key={c.key} style={{ paddingLeft: `${(chain.length + 1) * 14}px` }}>
                <Link href={envHref(c.key)} className="font-mono hover:underline">
                  {c.key}
                </Link>{" "}
                <span className="text-zinc-500">
                  {c.op}
                  {c.direction ? ` · ${c.direction}` : ""} (child)
                </span>
              </li>
            ))}
          </ol>
          <div className="mt-3 text-xs text-zinc-500">
            In generations:{" "}
            {env.generations.map((g, i) => (
              <span key={g.index}>
                {i > 0 && ", "}
                <Link href={`${base}/generations/${g.index}`} className="hover:underline">
                  G{g.index}
                </Link>{" "}
                ({g.op}
                {g.direction ? `, ${g.direction}` : ""})
              </span>
            ))}
          </div>
        </Panel>
      </div>
      <Panel title="Results by generation and policy" className="mb-3">
        <Table
          numeric
          testId="environment-results"
          rows={env.results}
          rowKey={(r) => `${r.generation}-${r.policy}`}
          empty="No rollouts of this environment yet."
          columns={[
            { key: "generation", header: "Generation", cell: (r) => `G${r.generation}` },
            { key: "policy", header: "Policy", cell: (r) => r.policy },
            { key: "rollouts", header: "Rollouts", align: "right", cell: (r) => count(r.rollouts) },
            { key: "success", header: "Success", align: "right", cell: (r) => pct(r.successRate) },
            { key: "reward", header: "Mean reward", align: "right", cell: (r) => fixed(r.meanReward, 3) },
            {
              key: "learnability",
              header: <span title={LEARNABILITY_HELP}>Learnability</span>,
              align: "right",
              cell: (r) => fixed(r.learnability),
            },
            {
              key: "passk",
              header: "pass@k",
              className: "pl-3 text-xs whitespace-nowrap text-zinc-600",
              headerClassName: "pl-3",
              cell: (r) =>
                passAtKShown(r.passAtK)
                  .map(([k, v]) => `@${k} ${fixed(v, 2)}`)
                  .join("  "),
            },
            { key: "infra", header: "Infra", align: "right", cell: (r) => r.infraErrors || "" },
          ]}
        />
      </Panel>
      <Panel title={`Attempts (${count(attempts.length)}${attempts.length >= 200 ? "+" : ""})`}>
        <AttemptList slug={slug} environmentKey={env.key} attempts={attempts.map((a) => ({ ...a, id: Number(a.id) }))} />
      </Panel>
    </Shell>
  );
}
