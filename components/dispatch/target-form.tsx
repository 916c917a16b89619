"use client";

import { useRouter } from "next/navigation";
import { useMutation } from "@tanstack/react-query";
import { useRef, useState, type FormEvent } from "react";
import { apiFetch } from "@/components/ui/api-client";
import { Button } from "@/components/ui/button";
import { Field, fieldClass as input } from "@/components/ui/form";
import { useHydrated } from "@/components/ui/use-hydrated";

const TEMPLATES: Record<string, object> = {
  webhook: { url: "https://trainer.example.org/envforge" },
  ray: { address: "http://ray-head:8265", entrypoint: "python train.py --payload-env ENVFORGE_PAYLOAD_JSON" },
  kubernetes: {
    apiServer: "https://kubernetes.default.svc",
    namespace: "rl",
    image: "ghcr.io/acme/trainer:latest",
    command: ["python", "train.py"],
  },
  local: { command: ["python", "train.py", "--payload", "{{payloadPath}}"] },
  export: { directory: "./exports" },
};

/** Add a dispatch target (admins): adapter, its config as JSON, and a secret stored encrypted. */
export function TargetForm({ slug }: { slug: string }) {
  const router = useRouter();
  const [adapter, setAdapter] = useState("webhook");
  const [config, setConfig] = useState(JSON.stringify(TEMPLATES.webhook, null, 2));
  const [configError, setConfigError] = useState<string | null>(null);
  const [added, setAdded] = useState<string | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const hydrated = useHydrated();
  const mutation = useMutation({
    mutationFn: (body: { name: string } & Record<string, unknown>) =>
      apiFetch<{ name: string }>(`/api/v1/projects/${encodeURIComponent(slug)}/targets`, { method: "POST", body: JSON.stringify(body) }),
    onMutate: () => setAdded(null),
    onSuccess: (t) => {
      // every field back to empty, the secret first: the next target must never inherit this one's secret
      formRef.current?.reset();
      setAdapter("webhook");
      setConfig(JSON.stringify(TEMPLATES.webhook, null, 2));
      setAdded(t.name);
      router.refresh();
    },
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    let parsed: unknown;
    try {
      parsed = JSON.parse(config);
    } catch (err) {
      mutation.reset();
      setConfigError(`The config is not JSON: ${(err as Error).message}`);
      return;
    }
    setConfigError(null);
    const secret = (f.get("secret") as string) || undefined;
    const secretEnv = (f.get("secretEnv") as string) || undefined;
    mutation.mutate({
      name: String(f.get("name") ?? ""),
      kind: f.get("kind"),
      adapter,
      config: parsed,
      ...(secret ? { secret } : {}),
      ...(secretEnv ? { secretEnv } : {}),
    });
  };
  return (
    // method="post": a submit before the page listens goes natively, and a GET would put the secret in the address
    <form ref={formRef} method="post" onSubmit={submit} className="space-y-2 text-sm" data-testid="target-form" autoComplete="off">
      <div className="flex flex-wrap gap-2">
        <Field label="Name">
          <input name="name" required className={input} aria-label="Target name" />
        </Field>
        <Field label="Kind">
          <select name="kind" className={input}>
            <option value="trainer">trainer</option>
            <option value="sandbox">sandbox</option>
          </select>
        </Field>
        <Field label="Adapter">
          <select
            value={adapter}
            onChange={(e) => {
              setAdapter(e.target.value);
              setConfig(JSON.stringify(TEMPLATES[e.target.value], null, 2));
            }}
            className={input}
          >
            {Object.keys(TEMPLATES).map((a) => (
              <option key={a}>{a}</option>
            ))}
          </select>
        </Field>
        <Field label="Secret" help="stored encrypted">
          <input name="secret" type="password" autoComplete="new-password" className={input} />
        </Field>
        <Field label="or from env var">
          <input name="secretEnv" placeholder="TRAINER_TOKEN" className={input} aria-label="Secret environment variable" />
        </Field>
      </div>
      <Field label="Config" error={configError}>
        <textarea
          value={config}
          onChange={(e) => setConfig(e.target.value)}
          rows={6}
          spellCheck={false}
          className={`${input} font-mono text-xs`}
        />
      </Field>
      <Button type="submit" variant="primary" busy={mutation.isPending} disabled={!hydrated}>
        Add target
      </Button>
      {added && (
        <p className="text-green-700" role="status" data-testid="target-added">
          Added {added}. The form is empty again for the next target.
        </p>
      )}
      {mutation.error && (
        <p role="alert" className="text-red-700" data-testid="target-error">
          {(mutation.error as Error).message}
        </p>
      )}
    </form>
  );
}
