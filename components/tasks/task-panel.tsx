/** The Harbor task of an environment: rendered instruction, task.toml as fields, file tree and viewer. */
import ReactMarkdown from "react-markdown";
import type { Db } from "@/lib/db/client";
import type { ProjectRow } from "@/lib/projects/service";
import { environmentId as environmentIdOf, listTaskFiles, readTaskFile } from "@/lib/tasks/files";
import { parseTaskToml } from "@/lib/tasks/task-toml";
import { Panel } from "@/components/ui/shell";
import { formatValue } from "@/components/ui/format";
import { TaskFiles } from "./task-files";
import { Table } from "@/components/ui/table";

function flatten(value: unknown, prefix = "", out: [string, string][] = []): [string, string][] {
  if (value && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length) {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else out.push([prefix, formatValue(value)]);
  return out;
}

/** Server part: reads instruction(s) and task.toml; nothing is shown for an environment without task files. */
export async function TaskPanel({ db, project, envKey }: { db: Db; project: ProjectRow; envKey: string }) {
  const { files } = await listTaskFiles(db, project, envKey);
  if (files.length === 0) return null;
  const environmentId = await environmentIdOf(db, project, envKey);
  const text = async (p: string) => (await readTaskFile(db, environmentId, p))?.data.toString("utf8") ?? null;
  const instructions = files
    .filter((f) => f.path === "instruction.md" || /^steps\/[^/]+\/instruction\.md$/.test(f.path))
    .map((f) => f.path);
  const rendered = await Promise.all(instructions.map(async (p) => ({ path: p, text: (await text(p)) ?? "" })));
  let tomlFields: [string, string][] = [];
  let tomlError: string | null = null;
  const toml = await text("task.toml");
  if (toml !== null) {
    try {
      tomlFields = flatten(parseTaskToml(toml).raw);
    } catch (e) {
      tomlError = (e as Error).message;
    }
  }
  return (
    <div className="mb-3 grid grid-cols-1 gap-3 lg:grid-cols-2">
      <Panel title="Instruction">
        <div className="prose prose-sm max-w-none p-1 text-sm" data-testid="task-instruction">
          {rendered.map((r) => (
            <div key={r.path} className="mb-3">
              {rendered.length > 1 && <div className="mb-1 font-mono text-xs text-zinc-500">{r.path}</div>}
              {/* no raw HTML: react-markdown escapes it unless told otherwise, and skipHtml drops it */}
              <ReactMarkdown skipHtml>{r.text}</ReactMarkdown>
            </div>
          ))}
        </div>
      </Panel>
      <Panel title="task.toml">
        {tomlError ? (
          <p className="text-sm text-red-700">{tomlError}</p>
        ) : (
          <Table
            size="xs"
            testId="task-toml"
            rows={tomlFields}
            rowKey={([k]) => k}
            empty="task.toml sets nothing."
            columns={[
              { key: "field", header: "Field", cell: ([k]) => k, className: "font-mono text-zinc-500" },
              { key: "value", header: "Value", cell: ([, v]) => v, className: "break-all font-mono" },
            ]}
          />
        )}
      </Panel>
      <Panel title={`Files (${files.length})`} className="lg:col-span-2">
        <TaskFiles slug={project.slug} envKey={envKey} files={files} />
      </Panel>
    </div>
  );
}
