/**
 * Arena runs in the app: reports uploaded by `envforge arena --upload`, or runs queued from the
 * arena page and run by a worker in a child process (the arena is CPU-bound; the worker's event
 * loop, and the web server beside it, stay responsive).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { desc, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { arenaRuns } from "@/lib/db/schema";
import { Conflict, NotFound, parseOrThrow } from "@/lib/errors";
import type { Principal } from "@/lib/auth/principal";
import { ARENA_SETTINGS, type ArenaMatrixReport, type ArenaReport } from "@/lib/arena/types";
import { processEnvironment } from "@/lib/config/env";

export const arenaRunSchema = z.strictObject({
  seeds: z.number().int().min(1).max(50).default(3),
  quick: z.boolean().default(true),
});

export const arenaJobSchema = z.object({ runId: z.number().int().positive() });

/**
 * A goal check as the page, `envforge arena` and bench:arena read it (lib/arena/types.ts, GoalCheck): every figure they
 * print or divide by must be a number, so a crafted upload is refused here, naming the field, rather than drawn as NaN
 * or breaking the page for everyone who opens it.
 */
const checkSchema = z.looseObject({
  setting: z.enum(ARENA_SETTINGS),
  level: z.union([z.literal(50), z.literal(80)]),
  baseline: z.string().min(1).max(64),
  heuristic: z.number().nonnegative(),
  other: z.number().nonnegative(),
  ratio: z.number().nonnegative(),
  limit: z.number().positive(),
  won: z.boolean(),
  oracle: z.number().nonnegative().optional(),
  oracleWon: z.boolean().optional(),
});

/** Just enough of a report (one cell) to draw it, its goal checks whole; the rest is kept as sent. */
const cellSchema = z.looseObject({
  version: z.literal(1),
  seeds: z.number().int().positive(),
  quick: z.boolean(),
  family: z.string(),
  budget: z.object({ rollouts: z.number().positive() }),
  settings: z.object({ clean: z.record(z.string(), z.unknown()), traps: z.record(z.string(), z.unknown()) }),
  curves: z.object({ clean: z.record(z.string(), z.unknown()), traps: z.record(z.string(), z.unknown()) }),
  goal: z.looseObject({ met: z.boolean(), checks: z.array(checkSchema).max(64).optional() }),
});

/** A matrix of cells (several families, learners or trap shares). */
const matrixSchema = z.looseObject({
  version: z.literal(1),
  kind: z.literal("matrix"),
  seeds: z.number().int().positive(),
  quick: z.boolean(),
  cells: z.array(cellSchema).min(1).max(200),
  goal: z.looseObject({ met: z.boolean() }),
});

/**
 * A report: a matrix when it says `kind: "matrix"`, else one cell. Chosen before parsing rather than as a union, so an
 * error names the field that is wrong (a union names only the report).
 */
const reportSchema = (body: unknown) =>
  typeof body === "object" && body !== null && (body as { kind?: unknown }).kind === "matrix" ? matrixSchema : cellSchema;

/** An arena run as the API and the page show it. */
export type ArenaRunView = ReturnType<typeof view>;

function view(r: typeof arenaRuns.$inferSelect) {
  return {
    id: r.id,
    status: r.status,
    options: r.options,
    progress: (r.progress ?? null) as { done: number; total: number | null; label: string } | null,
    error: r.error ?? undefined,
    createdBy: r.createdBy,
    createdAt: r.createdAt.toISOString(),
    finishedAt: r.finishedAt?.toISOString(),
    report: (r.report ?? null) as ArenaReport | ArenaMatrixReport | null,
  };
}

/** POST /arena/reports: store a report made elsewhere (the CLI). */
export async function uploadArenaReport(db: Db, body: unknown, principal: Principal) {
  const report = parseOrThrow(reportSchema(body), body, "report");
  const [row] = await db
    .insert(arenaRuns)
    .values({
      status: "succeeded",
      options: { seeds: report.seeds, quick: report.quick, uploaded: true },
      report,
      createdBy: principal.actor,
      finishedAt: new Date(),
    })
    .returning();
  return view(row);
}

/** POST /arena/runs: queue a run on a worker. */
export async function queueArenaRun(
  db: Db,
  body: unknown,
  principal: Principal,
  enqueueJob: (data: z.infer<typeof arenaJobSchema>) => Promise<unknown>,
) {
  const options = parseOrThrow(arenaRunSchema, body ?? {});
  const [busy] = await db.select({ id: arenaRuns.id }).from(arenaRuns).where(eq(arenaRuns.status, "running")).limit(1);
  if (busy) throw new Conflict(`Arena run ${busy.id} is running; wait for it to finish.`);
  const [row] = await db
    .insert(arenaRuns)
    .values({ status: "queued", options, createdBy: principal.actor, progress: { done: 0, total: null, label: "waiting for a worker" } })
    .returning();
  await enqueueJob({ runId: row.id });
  return view(row);
}

/** GET /arena/runs: newest first (reports included). */
export async function listArenaRuns(db: Db, limit = 20) {
  const rows = await db.select().from(arenaRuns).orderBy(desc(arenaRuns.createdAt), desc(arenaRuns.id)).limit(limit);
  return rows.map(view);
}

/** GET /arena/runs/{id}. */
export async function getArenaRun(db: Db, id: number) {
  const [row] = await db.select().from(arenaRuns).where(eq(arenaRuns.id, id));
  if (!row) throw new NotFound(`Arena run ${id} does not exist.`);
  return view(row);
}

/** The newest finished report, if any. */
export async function latestArenaReport(db: Db) {
  const [row] = await db
    .select()
    .from(arenaRuns)
    .where(eq(arenaRuns.status, "succeeded"))
    .orderBy(desc(arenaRuns.createdAt), desc(arenaRuns.id))
    .limit(1);
  return row ? view(row) : null;
}

/** The worker's job: run `envforge arena` in a child process, follow its progress, store the report. */
export async function runArenaJob(db: Db, data: unknown, root = path.resolve(import.meta.dirname, "..", "..")) {
  const { runId } = arenaJobSchema.parse(data);
  const [run] = await db.select().from(arenaRuns).where(eq(arenaRuns.id, runId));
  if (!run || run.status !== "queued") return;
  const options = arenaRunSchema.parse(run.options);
  await db
    .update(arenaRuns)
    .set({ status: "running", progress: { done: 0, total: null, label: "starting" } })
    .where(eq(arenaRuns.id, runId));
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ef-arena-")), "report.json");
  const args = [
    "--import",
    "tsx",
    path.join(root, "cli", "main.ts"),
    "arena",
    "--seeds",
    String(options.seeds),
    "--json",
    out,
    ...(options.quick ? ["--quick"] : []),
  ];
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: processEnvironment() });
      let tail = "";
      let last = 0;
      const onData = (chunk: Buffer) => {
        const text = chunk.toString();
        tail = (tail + text).slice(-4000);
        // progress lines look like "... 12/54 ..."; record the latest at most once a second
        const m = /(\d+)\s*\/\s*(\d+)/.exec(
          text
            .split(/[\r\n]/)
            .filter(Boolean)
            .pop() ?? "",
        );
        if (m && Date.now() - last > 1000) {
          last = Date.now();
          void db
            .update(arenaRuns)
            .set({ progress: { done: Number(m[1]), total: Number(m[2]), label: "running strategies" } })
            .where(eq(arenaRuns.id, runId));
        }
      };
      child.stdout.on("data", onData);
      child.stderr.on("data", onData);
      child.once("error", reject);
      child.once("exit", (code) =>
        code === 0 ? resolve() : reject(new Error(`envforge arena exited with ${code}: ${tail.trim().split("\n").slice(-3).join(" ")}`)),
      );
    });
    const made: unknown = JSON.parse(fs.readFileSync(out, "utf8"));
    const report = reportSchema(made).parse(made);
    await db.update(arenaRuns).set({ status: "succeeded", report, progress: null, finishedAt: new Date() }).where(eq(arenaRuns.id, runId));
  } catch (err) {
    await db
      .update(arenaRuns)
      .set({ status: "failed", error: (err as Error).message, finishedAt: new Date() })
      .where(eq(arenaRuns.id, runId));
  } finally {
    fs.rmSync(path.dirname(out), { recursive: true, force: true });
  }
}
