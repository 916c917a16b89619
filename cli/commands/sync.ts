/** `envforge sync agent-lightning --url <store>`: finished rollouts from an Agent Lightning store, from where the last sync stopped. */
import { AgentLightningClient, syncPages } from "@/lib/ingest/agent-lightning";
import type { RolloutInput } from "@/lib/ingest/normalized";
import type { EnvForgeClient } from "../client";
import { Progress } from "../progress";
import { uploadRollouts, type UploadSummary } from "../upload";
import type { ImportResult } from "./import";

export interface SyncOptions {
  project: string;
  url: string;
  key?: string;
  policy?: string;
  api?: "envforge" | "agl-v1";
  createEnvironments?: boolean;
  quiet?: boolean;
}

/** The config to create an environment with: the task name for terminal tasks, else a config the store carried. */
function environmentConfig(family: string, r: RolloutInput): Record<string, unknown> | undefined {
  if (family === "terminal-task") return { task_name: r.environmentKey };
  const meta = (r.metadata ?? {}) as { task?: Record<string, unknown>; aglMetadata?: Record<string, unknown> };
  const candidate = meta.aglMetadata?.environment_config ?? meta.task?.environment_config ?? meta.task?.config;
  return candidate && typeof candidate === "object" && !Array.isArray(candidate) ? (candidate as Record<string, unknown>) : undefined;
}

/** Pull every finished rollout after the saved cursor; the cursor moves only after a page is stored. */
export async function syncAgentLightning(client: EnvForgeClient, opts: SyncOptions): Promise<ImportResult> {
  const project = await client.request<{ family: string }>("GET", `/api/v1/projects/${encodeURIComponent(opts.project)}`);
  const cursorPath = `/api/v1/projects/${encodeURIComponent(opts.project)}/sync-cursors`;
  const saved = await client.request<{ cursor: string | null }>(
    "GET",
    `${cursorPath}?source=agent-lightning&url=${encodeURIComponent(opts.url)}`,
  );
  const store = new AgentLightningClient({ url: opts.url, apiKey: opts.key, api: opts.api });
  const total: UploadSummary = { accepted: 0, duplicates: 0, rejected: [], sent: 0 };
  const unreadable: ImportResult["unreadable"] = [];
  const notices: string[] = [];
  const progress = new Progress("syncing", null, opts.quiet);
  for await (const page of syncPages(store, { after: saved.cursor ?? undefined, policy: opts.policy, project: opts.project })) {
    if (page.storeReset) notices.push(page.storeReset.message);
    unreadable.push(...page.skipped.map((s) => ({ ref: `rollout ${s.rolloutId}`, reason: s.message })));
    if (page.rollouts.length) {
      const items = page.rollouts.map((r) => ({
        ref: `rollout ${String(r.externalId).replace(/^agl:/, "")}`,
        json: JSON.stringify(opts.createEnvironments ? { ...r, environmentConfig: environmentConfig(project.family, r) } : r),
      }));
      const s = await uploadRollouts(client, opts.project, items, { createEnvironments: opts.createEnvironments });
      total.accepted += s.accepted;
      total.duplicates += s.duplicates;
      total.rejected.push(...s.rejected);
      total.sent += s.sent;
    }
    if (page.cursor !== null)
      await client.request("PUT", cursorPath, { json: { source: "agent-lightning", url: opts.url, cursor: page.cursor } });
    progress.update(total.sent, `page ${page.page}`);
  }
  progress.done();
  return { summary: total, unreadable, notices };
}
