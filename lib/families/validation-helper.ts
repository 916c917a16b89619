/**
 * Validation on the second core: a worker thread that validates configs the engineer will ask about later, and draws
 * the fresh samples it will take, while the engineer's main thread works on what comes before them (issue 19: the
 * heuristic engineer validates one candidate at a time, and the p_max value iteration is about half of its time).
 *
 * The engineer's answers do not change: a family's validator and sampler are pure functions of the config and the
 * seed, the helper runs the same code, and its results come back by structured clone (every double, -0 and undefined
 * kept). Whoever claims a config first computes it (an Atomics compare-and-exchange per config): the main thread never
 * waits for a config the helper has not started, and waits for one it has (at most one validation). If the helper
 * cannot start or dies, every answer is computed on the main thread as before.
 *
 * The engineer stays synchronous: answers are read with `receiveMessageOnPort` and waited for with `Atomics.wait`,
 * never through the event loop. One helper per process, started on first use and reused; it does not keep the
 * process alive.
 */
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
import { canonicalJson } from "./hash";
import type { FamilyConfig, FamilyDefinition, ValidationResult } from "./types";

/** What the main thread posts to the helper: one session's work, in the order the engineer will need it. */
export interface HelperTask {
  session: number;
  familyId: string;
  configs: FamilyConfig[];
  /**
   * one Int32 per config (0 free, 1 the helper's, 2 the main thread's), then the session's cancel flag, then how many
   * samples the helper has started drawing (it stops drawing once the main thread draws for itself: the cancel flag)
   */
  claims: SharedArrayBuffer;
  samples?: { seed: number | string; label: string; count: number };
}

/** What the helper posts back, one message per answer. */
export type HelperAnswer =
  | { session: number; kind: "config"; index: number; result: ValidationResult }
  | { session: number; kind: "sample"; index: number; config: FamilyConfig; result: ValidationResult }
  | { session: number; kind: "failed"; error: string };

const FREE = 0;
const HELPER = 1;
const MAIN = 2;
/** the longest the main thread waits for one answer the helper claimed before computing it itself (a hung helper) */
const WAIT_MS = 10_000;

interface Helper {
  worker: Worker;
  port: MessagePort;
  /** [0]: answers posted so far (the helper adds and notifies) */
  posted: Int32Array;
  dead: boolean;
}

let helper: Helper | null | undefined;
let sessions = 0;

function startHelper(): Helper | null {
  try {
    const { port1, port2 } = new MessageChannel();
    const posted = new Int32Array(new SharedArrayBuffer(4));
    // The helper is TypeScript like the rest: a few lines of JavaScript register tsx's loader in the thread (the server
    // and the benches run under `--import tsx`, whose hooks a worker thread does not inherit), then load it.
    const entry = new URL("./validation-helper-worker.ts", import.meta.url).href;
    const tsx =
      typeof import.meta.resolve === "function"
        ? import.meta.resolve("tsx/esm/api")
        : pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm/api")).href;
    const boot =
      `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })` +
      `.catch((err) => { console.error("[engineer] validation helper thread: " + err.message); process.exit(1); });`;
    const worker = new Worker(boot, { eval: true, execArgv: [], workerData: { port: port2, posted }, transferList: [port2] });
    const h: Helper = { worker, port: port1, posted, dead: false };
    worker.on("error", (err) => {
      h.dead = true;
      console.error(`[engineer] validation helper thread failed: ${err.message}`);
    });
    worker.on("exit", () => {
      h.dead = true;
      if (helper === h) helper = undefined; // the next session starts another
    });
    worker.unref();
    port1.unref();
    return h;
  } catch (err) {
    console.error(`[engineer] validation helper thread not started: ${(err as Error).message}`);
    return null;
  }
}

/** One engineer run's use of the helper: ask ahead, then read the answers through `family`. */
export class HelperSession {
  readonly family: FamilyDefinition;
  private readonly index = new Map<string, number>();
  private readonly results = new Map<number, ValidationResult>();
  private readonly sampled: FamilyConfig[] = [];
  private readonly sampledResults = new Map<string, ValidationResult>();
  private claims: Int32Array | null = null;
  private sampleCount = 0;
  private failed = false;
  private readonly id = ++sessions;
  /** answers the engineer took from the helper, and samples (for tests and the bench) */
  served = 0;
  samplesTaken = 0;
  /** milliseconds the main thread waited for the helper's answers */
  waitedMs = 0;
  private asked = 0;

  constructor(
    private readonly base: FamilyDefinition,
    private readonly h: Helper,
  ) {
    const validate = (config: unknown) => this.validate(config);
    this.family = { ...base, validate };
  }

  /** Ask the helper to validate `configs` (in this order) and to draw `samples`; once per session. */
  ask(configs: readonly FamilyConfig[], samples?: HelperTask["samples"]): void {
    if (this.claims) throw new Error("a helper session asks once");
    const claims = new SharedArrayBuffer(4 * (configs.length + 2));
    this.claims = new Int32Array(claims);
    configs.forEach((c, i) => {
      const key = canonicalJson(c);
      if (!this.index.has(key)) this.index.set(key, i);
    });
    this.sampleCount = samples?.count ?? 0;
    this.asked = configs.length;
    const task: HelperTask = { session: this.id, familyId: this.base.id, configs: [...configs], claims, ...(samples ? { samples } : {}) };
    this.h.worker.postMessage(task);
  }

  /** Stop the helper's work for this session (what it has not started is dropped). */
  close(): void {
    if (this.claims) Atomics.store(this.claims, this.claims.length - 2, 1);
  }

  /**
   * The i-th sample the helper drew for this session: waits for it when the helper has started drawing it; undefined
   * when not asked, not started (the helper is stopped: the caller draws from here on) or not to be had.
   */
  sample(i: number): FamilyConfig | undefined {
    if (i >= this.sampleCount || !this.claims || this.failed) return undefined;
    this.drain();
    if (this.sampled.length > i) return this.took(this.sampled[i]);
    if (Atomics.load(this.claims, this.claims.length - 1) <= i) {
      this.close();
      this.sampleCount = 0;
      return undefined;
    }
    while (this.sampled.length <= i) if (!this.await()) return undefined;
    return this.took(this.sampled[i]);
  }

  /** Whether the helper has answered everything it was asked (for tests). */
  answeredAll(): boolean {
    this.drain();
    return this.claims !== null && this.results.size === this.asked && this.sampled.length === this.sampleCount;
  }

  private took(config: FamilyConfig): FamilyConfig {
    this.samplesTaken += 1;
    return config;
  }

  private validate(config: unknown): ValidationResult {
    const key = canonicalJson(config);
    const i = this.index.get(key);
    if (i !== undefined && this.claims) {
      this.drain();
      const known = this.results.get(i);
      if (known) return this.take(known);
      // not started by the helper: computed here, and the helper skips it
      if (Atomics.compareExchange(this.claims, i, FREE, MAIN) === FREE) return this.base.validate(config);
      if (Atomics.load(this.claims, i) === HELPER) {
        while (!this.results.has(i)) if (!this.await()) return this.base.validate(config);
        return this.take(this.results.get(i)!);
      }
    }
    const drawn = this.sampledResults.get(key);
    if (drawn) return this.take(drawn);
    return this.base.validate(config);
  }

  private take(result: ValidationResult): ValidationResult {
    this.served += 1;
    return result;
  }

  /** Read every answer the helper has posted. */
  private drain(): void {
    for (;;) {
      const m = receiveMessageOnPort(this.h.port);
      if (!m) return;
      const a = m.message as HelperAnswer;
      if (a.session !== this.id) continue; // an earlier session's late answer
      if (a.kind === "config") this.results.set(a.index, a.result);
      else if (a.kind === "sample") {
        this.sampled[a.index] = a.config;
        this.sampledResults.set(canonicalJson(a.config), a.result);
      } else {
        this.failed = true;
        console.error(`[engineer] validation helper: ${a.error}`);
      }
    }
  }

  /** Wait for the helper's next answer; false when there is none to wait for (failed, dead, or too slow). */
  private await(): boolean {
    if (this.failed || this.h.dead) return false;
    const seen = Atomics.load(this.h.posted, 0);
    const before = this.results.size + this.sampled.length;
    this.drain();
    if (this.results.size + this.sampled.length > before) return true;
    const t0 = performance.now();
    const outcome = Atomics.wait(this.h.posted, 0, seen, WAIT_MS);
    this.waitedMs += performance.now() - t0;
    if (outcome === "timed-out") {
      this.failed = true;
      return false;
    }
    this.drain();
    return !this.failed;
  }
}

/** Start the process's helper thread now (the worker does at its start, so the first proposal does not wait for it). */
export function startValidationHelper(): void {
  if (helper === undefined || helper?.dead) helper = startHelper();
}

/**
 * A session on the process's helper thread for a built-in family's engineer run, or undefined where there is none
 * (a custom family, which the helper cannot rebuild, or a helper that could not start).
 */
export function helperSession(family: FamilyDefinition, builtin: boolean): HelperSession | undefined {
  if (!builtin) return undefined;
  startValidationHelper();
  return helper ? new HelperSession(family, helper) : undefined;
}
