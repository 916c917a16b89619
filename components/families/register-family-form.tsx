"use client";

import CodeMirror from "@uiw/react-codemirror";
import { StreamLanguage } from "@codemirror/language";
import { json } from "@codemirror/legacy-modes/mode/javascript";
import { EditorView } from "@codemirror/view";
import { useRouter } from "next/navigation";
import { useMutation } from "@tanstack/react-query";
import { useState, type ReactElement } from "react";
import { Button } from "@/components/ui/button";
import { Field, fieldClass } from "@/components/ui/form";
import { Table, type Column } from "@/components/ui/table";
import {
  DIRECTIONS,
  EMPTY_FIELD,
  FIELD_KINDS,
  STARTER_SCHEMA,
  draftBody,
  draftProblems,
  fieldsFromSchema,
  type DraftProblem,
  type FamilyDraft,
  type FieldDraft,
} from "@/components/families/family-draft";

const EDITOR_EXTENSIONS = [
  StreamLanguage.define(json),
  EditorView.lineWrapping,
  EditorView.contentAttributes.of({ "aria-label": "JSON Schema", "aria-describedby": "family-schema-help" }),
];

/** The API's error body: message plus details naming field paths. */
class RegistrationRefused extends Error {
  constructor(
    message: string,
    readonly problems: DraftProblem[],
  ) {
    super(message);
  }
}

/** The message of the first problem at exactly this path. */
function problemAt(problems: DraftProblem[], path: string): string | undefined {
  return problems.find((p) => p.path === path)?.message;
}

/** The first problem at this path or under it (jsonSchema.properties.x… counts for jsonSchema). */
function problemUnder(problems: DraftProblem[], path: string): string | undefined {
  const p = problems.find((x) => x.path === path || x.path.startsWith(`${path}.`));
  return p ? (p.path === path ? p.message : `${p.path}: ${p.message}`) : undefined;
}

/**
 * Register a custom family: id, version, a JSON Schema in a code editor, and one row of metadata per
 * mutable field. Checked in the browser with the server's own schema and family checks (every problem
 * names its field) and again by POST /api/v1/families; on success the family's page opens.
 */
export function RegisterFamilyForm() {
  const router = useRouter();
  const [draft, setDraft] = useState<FamilyDraft>({
    id: "",
    version: "1",
    description: "",
    schemaText: STARTER_SCHEMA,
    fields: fieldsFromSchema(STARTER_SCHEMA),
  });
  const [checked, setChecked] = useState<DraftProblem[] | null>(null);
  const register = useMutation({
    mutationFn: async (body: Record<string, unknown>) => {
      const res = await fetch("/api/v1/families", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const data = await res.json().catch(() => ({}));
      if (!res.ok) {
        const details = Array.isArray(data?.error?.details) ? (data.error.details as DraftProblem[]) : [];
        throw new RegistrationRefused(
          data?.error?.message ?? `Request failed (${res.status})`,
          details.filter((d) => d.path),
        );
      }
      return data as { id: string };
    },
    onSuccess: (family) => {
      router.push(`/families/${encodeURIComponent(family.id)}`);
      router.refresh();
    },
  });
  const serverProblems = register.error instanceof RegistrationRefused ? register.error.problems : [];
  const problems = [...(checked ?? []), ...serverProblems];

  const update = (patch: Partial<FamilyDraft>) => {
    setDraft((d) => ({ ...d, ...patch }));
    // problems were found for the old text: checking again happens on submit
    if (checked) setChecked(null);
  };
  const updateField = (index: number, patch: Partial<FieldDraft>) =>
    update({ fields: draft.fields.map((f, i) => (i === index ? { ...f, ...patch } : f)) });

  const submit = () => {
    register.reset();
    const found = draftProblems(draft);
    setChecked(found);
    const built = draftBody(draft);
    if (found.length === 0 && "body" in built) register.mutate(built.body);
  };

  // a level's problem (fields.2.levels.1) belongs to the row's levels input
  const fieldError = (i: number, key: string) => problemUnder(problems, `fields.${i}.${key}`);

  // one control per column; a problem at fields.<row>.<key> is shown under its control
  const withError = (i: number, key: string, control: ReactElement) => {
    const error = fieldError(i, key);
    return (
      <>
        {control}
        {error && (
          <div className="mt-0.5 max-w-48 text-xs text-red-700" data-testid={`field-${i}-${key}-error`}>
            {error}
          </div>
        )}
      </>
    );
  };
  const invalid = (i: number, key: string) => (fieldError(i, key) ? true : undefined);
  const isNumeric = (f: FieldDraft) => f.kind === "integer" || f.kind === "number";
  const isLevelled = (f: FieldDraft) => f.kind === "ordinal" || f.kind === "nominal";
  const fieldColumns: Column<FieldDraft>[] = [
    {
      key: "path",
      header: "Path",
      cell: (f, i) =>
        withError(
          i,
          "path",
          <input
            className={`${fieldClass} w-36`}
            aria-label={`Field ${i + 1} path`}
            aria-invalid={invalid(i, "path")}
            value={f.path}
            onChange={(e) => updateField(i, { path: e.target.value })}
          />,
        ),
    },
    {
      key: "kind",
      header: "Kind",
      cell: (f, i) =>
        withError(
          i,
          "kind",
          <select
            className={fieldClass}
            aria-label={`Field ${i + 1} kind`}
            aria-invalid={invalid(i, "kind")}
            value={f.kind}
            onChange={(e) => updateField(i, { kind: e.target.value as FieldDraft["kind"] })}
          >
            {FIELD_KINDS.map((k) => (
              <option key={k}>{k}</option>
            ))}
          </select>,
        ),
    },
    ...(["min", "max"] as const).map((bound): Column<FieldDraft> => ({
      key: bound,
      header: bound === "min" ? "Min" : "Max",
      cell: (f, i) =>
        withError(
          i,
          bound,
          <input
            className={`${fieldClass} w-20`}
            aria-label={`Field ${i + 1} ${bound}`}
            aria-invalid={invalid(i, bound)}
            inputMode="decimal"
            disabled={!isNumeric(f)}
            placeholder={isNumeric(f) ? "schema" : ""}
            value={isNumeric(f) ? f[bound] : ""}
            onChange={(e) => updateField(i, { [bound]: e.target.value })}
          />,
        ),
    })),
    {
      key: "levels",
      header: "Levels",
      cell: (f, i) =>
        withError(
          i,
          "levels",
          <input
            className={`${fieldClass} w-40`}
            aria-label={`Field ${i + 1} levels`}
            aria-invalid={invalid(i, "levels")}
            disabled={!isLevelled(f)}
            placeholder={isLevelled(f) ? "schema enum" : ""}
            value={isLevelled(f) ? f.levels : ""}
            onChange={(e) => updateField(i, { levels: e.target.value })}
          />,
        ),
    },
    {
      key: "difficulty",
      header: "Difficulty",
      cell: (f, i) =>
        withError(
          i,
          "difficulty",
          <select
            className={fieldClass}
            aria-label={`Field ${i + 1} difficulty`}
            aria-invalid={invalid(i, "difficulty")}
            value={f.difficulty}
            onChange={(e) => updateField(i, { difficulty: e.target.value as FieldDraft["difficulty"] })}
          >
            <option value="">—</option>
            <option value="up">up (larger is harder)</option>
            <option value="down">down (larger is easier)</option>
          </select>,
        ),
    },
    {
      key: "direction",
      header: "Direction",
      cell: (f, i) =>
        withError(
          i,
          "direction",
          <select
            className={fieldClass}
            aria-label={`Field ${i + 1} direction`}
            aria-invalid={invalid(i, "direction")}
            value={f.direction}
            onChange={(e) => updateField(i, { direction: e.target.value as FieldDraft["direction"] })}
          >
            <option value="">—</option>
            {DIRECTIONS.map((d) => (
              <option key={d}>{d}</option>
            ))}
          </select>,
        ),
    },
    {
      key: "remove",
      header: "Remove",
      hideHeader: true,
      cell: (f, i) => (
        <Button
          size="sm"
          variant="ghost"
          aria-label={`Remove field ${i + 1}${f.path ? ` (${f.path})` : ""}`}
          onClick={() => update({ fields: draft.fields.filter((_, j) => j !== i) })}
        >
          Remove
        </Button>
      ),
    },
  ];

  return (
    <form
      className="space-y-4"
      data-testid="register-family"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      {(problems.length > 0 || register.error) && (
        <div role="alert" className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-800" data-testid="family-problems">
          <p className="font-medium">
            {register.error && serverProblems.length === 0
              ? register.error.message
              : `The family cannot be registered yet: ${problems.length} problem${problems.length === 1 ? "" : "s"}.`}
          </p>
          {problems.length > 0 && (
            <ul className="mt-1 list-disc pl-5">
              {problems.map((p, i) => (
                <li key={i}>
                  <code className="font-mono">{p.path}</code>: {p.message}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}

      <div className="flex flex-wrap gap-3">
        <Field label="Id (lowercase, dashes)" error={problemAt(problems, "id")}>
          <input className={fieldClass} value={draft.id} onChange={(e) => update({ id: e.target.value })} placeholder="my-gridworld" />
        </Field>
        <Field label="Version" error={problemAt(problems, "version")}>
          <input className={`${fieldClass} w-24`} value={draft.version} onChange={(e) => update({ version: e.target.value })} />
        </Field>
        <Field label="Description" className="min-w-48 flex-1" error={problemAt(problems, "description")}>
          <input className={`${fieldClass} w-full`} value={draft.description} onChange={(e) => update({ description: e.target.value })} />
        </Field>
      </div>

      <div>
        <div className="mb-1 text-xs text-zinc-600">JSON Schema of one environment&apos;s config</div>
        <p id="family-schema-help" className="mb-1 text-xs text-zinc-600">
          An object schema (type, properties, required, enum, minimum/maximum). Tab leaves the editor; bounds and enums here fill in the
          fields below.
        </p>
        <div
          className={`overflow-hidden rounded border ${problemUnder(problems, "jsonSchema") ? "border-red-600" : "border-zinc-300"} bg-white`}
          data-testid="family-schema-editor"
        >
          <CodeMirror
            value={draft.schemaText}
            onChange={(text) => update({ schemaText: text })}
            extensions={EDITOR_EXTENSIONS}
            indentWithTab={false}
            basicSetup={{ closeBrackets: false, foldGutter: false, highlightActiveLine: false }}
            minHeight="12rem"
            maxHeight="28rem"
          />
        </div>
        {problemUnder(problems, "jsonSchema") && (
          <p className="mt-1 text-xs text-red-700" data-testid="family-schema-error">
            {problemUnder(problems, "jsonSchema")}
          </p>
        )}
      </div>

      <fieldset className="min-w-0">
        <legend className="mb-1 text-sm font-medium text-zinc-800">Fields the engineer may change</legend>
        <p className="mb-2 text-xs text-zinc-600">
          Numeric fields need bounds (here or as the schema&apos;s minimum/maximum); ordinal fields need levels, easiest first (here as a
          comma-separated list, or the schema&apos;s enum). Difficulty says whether a larger value is harder (up) or easier (down).
        </p>
        {problemAt(problems, "fields") && (
          <p className="mb-1 text-xs text-red-700" role="alert">
            fields: {problemAt(problems, "fields")}
          </p>
        )}
        <Table
          columns={fieldColumns}
          rows={draft.fields}
          rowKey={(_, i) => i}
          rowProps={() => ({ "data-testid": "family-field-row" })}
          size="sm"
          compact
          empty={false}
          caption="Fields the engineer may change"
          testId="family-field-rows"
        />
        <div className="mt-2 flex flex-wrap gap-2">
          <Button size="sm" onClick={() => update({ fields: [...draft.fields, { ...EMPTY_FIELD }] })}>
            Add a field
          </Button>
          <Button size="sm" onClick={() => update({ fields: fieldsFromSchema(draft.schemaText) })}>
            Fields from the schema
          </Button>
        </div>
      </fieldset>

      <Button type="submit" variant="primary" busy={register.isPending}>
        Register family
      </Button>
    </form>
  );
}
