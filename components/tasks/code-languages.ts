/** CodeMirror language support by file name (task files: shell, Python, Dockerfile, TOML, YAML, Markdown, JSON). */
import { StreamLanguage } from "@codemirror/language";
import type { Extension } from "@codemirror/state";
import { python } from "@codemirror/lang-python";
import { markdown } from "@codemirror/lang-markdown";
import { shell } from "@codemirror/legacy-modes/mode/shell";
import { dockerFile } from "@codemirror/legacy-modes/mode/dockerfile";
import { toml } from "@codemirror/legacy-modes/mode/toml";
import { yaml } from "@codemirror/legacy-modes/mode/yaml";

/** The language extension for a path, or none (plain text). */
export function languageFor(filePath: string): Extension[] {
  const name = filePath.split("/").pop()!.toLowerCase();
  if (name.endsWith(".py")) return [python()];
  if (name.endsWith(".md")) return [markdown()];
  if (name.endsWith(".sh") || name.endsWith(".bash") || name === "entrypoint") return [StreamLanguage.define(shell)];
  if (name === "dockerfile" || name.endsWith(".dockerfile")) return [StreamLanguage.define(dockerFile)];
  if (name.endsWith(".toml")) return [StreamLanguage.define(toml)];
  if (name.endsWith(".yaml") || name.endsWith(".yml")) return [StreamLanguage.define(yaml)];
  if (name.endsWith(".json")) return [python()]; // close enough for strings/numbers/brackets without another package
  return [];
}
