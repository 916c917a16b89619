/** The CLI's settings from its environment: server, key and the variables a dispatched job is given. */
import { z } from "zod";
import { processEnvironment } from "./env";

const cliSchema = z.object({
  ENVFORGE_SERVER: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL such as http://127.0.0.1:3000" })
    .default("http://127.0.0.1:3000"),
  ENVFORGE_TOKEN: z.string().min(1).optional(),
  // what a dispatched job finds in its environment (see lib/dispatch: the payload URL and the dispatch's own key)
  ENVFORGE_PAYLOAD_URL: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional(),
  ENVFORGE_API_KEY: z.string().min(1).optional(),
  AGL_API_KEY: z.string().min(1).optional(),
});

export type CliSettings = z.infer<typeof cliSchema>;

/** Parse the CLI's environment; a bad value throws one sentence naming the variable. */
export function cliSettings(env: Record<string, string | undefined> = processEnvironment()): CliSettings {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([k, v]) => k in cliSchema.shape && v !== undefined && v !== ""));
  const parsed = cliSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue.path[0]);
    throw new Error(`${name}=${JSON.stringify(env[name])} is not valid: ${issue.message}.`);
  }
  return parsed.data;
}
