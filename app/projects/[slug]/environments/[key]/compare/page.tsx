import Link from "next/link";
import { notFound } from "next/navigation";
import { orNotFound, projectPage } from "@/lib/api/page-guard";
import { environmentAttempts, environmentDetail, newestAttemptWithOutcome } from "@/lib/generations/environment-detail";
import { getRolloutHeader } from "@/lib/rollouts/read";
import { readTurnPage } from "@/lib/rollouts/turns";
import { TURNS_PER_REQUEST } from "@/lib/rollouts/turn-types";
import { Button } from "@/components/ui/button";
import { Field, fieldClass } from "@/components/ui/form";
import { Panel, Shell } from "@/components/ui/shell";
import { CompareView } from "@/components/rollouts/compare-view";
import { ShortcutHelp } from "@/components/ui/shortcuts";

export const dynamic = "force-dynamic";

const SHORTCUTS = [
  { keys: "j / k", description: "next / previous aligned turn" },
  { keys: "?", description: "this list" },
];

/** Two attempts of one environment side by side, turns aligned (a passing and a failing one by default). */
export default async function ComparePage({
  params,
  searchParams,
}: {
  params: Promise<{ slug: string; key: string }>;
  searchParams: Promise<{ a?: string; b?: string }>;
}) {
  const { slug, key: rawKey } = await params;
  const key = decodeURIComponent(rawKey);
  const sp = await searchParams;
  const { user, db, project } = await projectPage(slug, `/projects/${slug}/environments/${rawKey}/compare`);
  const env = await orNotFound(environmentDetail(db, project, key));
  const attempts = await environmentAttempts(db, project, key);
  // one side given (from a rollout's "compare with a passing/failing attempt"): the other is the newest of the other outcome, or nothing
  const [passing, failing] = await Promise.all([
    newestAttemptWithOutcome(db, project, key, true),
    newestAttemptWithOutcome(db, project, key, false),
  ]);
  const a = Number(sp.a ?? (sp.b ? passing : (env.compareDefault.passing ?? attempts[0]?.id)));
  const b = Number(sp.b ?? (sp.a ? failing : (env.compareDefault.failing ?? attempts.find((x) => Number(x.id) !== a)?.id)));
  const missing = !sp.a && sp.b && passing === null ? "passing" : !sp.b && sp.a && failing === null ? "failing" : a === b ? "other" : null;
  if (missing) {
    const given = sp.a ?? sp.b;
    const envHref = `/projects/${encodeURIComponent(slug)}/environments/${encodeURIComponent(key)}`;
    return (
      <Shell
        user={user}
        crumbs={[
          { href: "/", label: "Projects" },
          { href: `/projects/${slug}`, label: project.name },
          { href: envHref, label: key },
          { label: "Compare" },
        ]}
      >
        <Panel>
          <p className="text-sm text-zinc-700" data-testid="compare-nothing">
            {missing === "other"
              ? `There is no other attempt of ${key} to compare #${given ?? a} with.`
              : `There is no ${missing} attempt of ${key} yet: nothing to compare #${given} with.`}{" "}
            <Link href={envHref} className="text-blue-700 underline">
              Back to the environment
            </Link>
          </p>
        </Panel>
      </Shell>
    );
  }
  if (!Number.isInteger(a) || !Number.isInteger(b)) notFound();
  const [ra, rb] = await Promise.all([orNotFound(getRolloutHeader(db, a, user)), orNotFound(getRolloutHeader(db, b, user))]);
  if (ra.projectId !== project.id || rb.projectId !== project.id) notFound();
  const [ta, tb] = await Promise.all([readTurnPage(db, a, 0, TURNS_PER_REQUEST), readTurnPage(db, b, 0, TURNS_PER_REQUEST)]);
  const base = `/projects/${encodeURIComponent(slug)}`;
  const envHref = `${base}/environments/${encodeURIComponent(key)}`;
  const label = (r: typeof ra) => `#${r.id} · ${r.policy} · G${r.generation} · reward ${r.reward ?? "—"}`;
  return (
    <Shell
      user={user}
      crumbs={[
        { href: "/", label: "Projects" },
        { href: `/projects/${slug}`, label: project.name },
        { href: envHref, label: key },
        { label: "Compare" },
      ]}
      actions={<ShortcutHelp shortcuts={SHORTCUTS} />}
    >
      <div className="mb-3 flex flex-wrap items-end gap-3">
        <h1 className="text-lg font-semibold">Compare attempts</h1>
        <form className="ml-auto flex max-w-full flex-wrap items-end gap-2 text-xs" action={`${envHref}/compare`}>
          {(["a", "b"] as const).map((side) => (
            <Field key={side} label={side === "a" ? "left" : "right"}>
              <select name={side} defaultValue={side === "a" ? a : b} className={`${fieldClass} max-w-full text-zinc-900`}>
                {attempts.map((x) => (
                  <option key={x.id} value={x.id}>
                    #{x.id} {x.success ? "pass" : "fail"} · {x.policy} · G{x.generation}
                  </option>
                ))}
              </select>
            </Field>
          ))}
          <Button type="submit" variant="primary" size="sm">
            Compare
          </Button>
        </form>
      </div>
      <div className="mb-2 flex gap-3 text-xs">
        <Link href={`${base}/rollouts/${a}`} className="text-blue-700 hover:underline">
          open left
        </Link>
        <Link href={`${base}/rollouts/${b}`} className="text-blue-700 hover:underline">
          open right
        </Link>
      </div>
      <Panel>
        <CompareView
          left={{ rolloutId: a, label: label(ra), success: ra.success, initial: ta }}
          right={{ rolloutId: b, label: label(rb), success: rb.success, initial: tb }}
        />
      </Panel>
    </Shell>
  );
}
