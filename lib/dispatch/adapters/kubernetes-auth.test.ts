/**
 * Kubernetes credentials besides a static token: the pod's service account (the files and
 * variables client-go's rest.InClusterConfig reads) and a kubeconfig file (current-context,
 * cluster server and CA, user token or client certificate), against the fake API server over TLS.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { stringify as yaml } from "yaml";
import { startFakeKubernetes, type FakeKubernetes } from "@/tests/fakes/kubernetes-server";
import { DeliveryError } from "../types";
import { kubernetesAdapter } from "./kubernetes";
import { deliveryContext, samplePayload } from "./test-payload";

const TOKEN = "eyJhbGciOiJSUzI1NiJ9.in-cluster-SECRET-1a2b";
let dir = "";
let serverKey = "";
let serverCert = "";
let clientKey = "";
let clientCert = "";
let kube: FakeKubernetes | undefined;

/** A self-signed key and certificate made by openssl (its own CA). */
function selfSigned(name: string, cn: string, san?: string): { key: string; cert: string } {
  const key = path.join(dir, `${name}.key`);
  const cert = path.join(dir, `${name}.crt`);
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      key,
      "-out",
      cert,
      "-days",
      "1",
      "-subj",
      `/CN=${cn}`,
      ...(san ? ["-addext", `subjectAltName=${san}`] : []),
    ],
    { stdio: "ignore" },
  );
  return { key: readFileSync(key, "utf8"), cert: readFileSync(cert, "utf8") };
}

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "envforge-k8s-auth-"));
  ({ key: serverKey, cert: serverCert } = selfSigned("server", "127.0.0.1", "IP:127.0.0.1"));
  ({ key: clientKey, cert: clientCert } = selfSigned("client", "envforge-admin"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await kube?.close();
  kube = undefined;
  delete process.env.KUBERNETES_SERVICE_HOST;
  delete process.env.KUBERNETES_SERVICE_PORT;
});

const job = { image: "ghcr.io/acme/trainer:1" };

async function failure(promise: Promise<unknown>): Promise<DeliveryError> {
  const e = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(DeliveryError);
  return e as DeliveryError;
}

describe("kubernetes credentials", () => {
  it("inCluster: the mounted token, CA and namespace, and KUBERNETES_SERVICE_HOST/PORT; a rotated token is read again", async () => {
    kube = await startFakeKubernetes({ token: TOKEN, tls: { key: serverKey, cert: serverCert } });
    const sa = path.join(dir, "serviceaccount");
    mkdirSync(sa, { recursive: true });
    writeFileSync(path.join(sa, "token"), `${TOKEN}\n`);
    writeFileSync(path.join(sa, "ca.crt"), serverCert);
    writeFileSync(path.join(sa, "namespace"), "envforge");
    const config = { auth: "inCluster", serviceAccountDir: sa, ...job };
    expect(kubernetesAdapter.checkConfig(config)).toEqual([]);
    expect(kubernetesAdapter.secretRequired!(config)).toBe(false);

    const payload = samplePayload();
    const outside = await failure(kubernetesAdapter.deliver(deliveryContext(payload, config, null)));
    expect(outside.message).toContain("KUBERNETES_SERVICE_HOST");
    expect(outside.retryable).toBe(false);

    process.env.KUBERNETES_SERVICE_HOST = "127.0.0.1";
    process.env.KUBERNETES_SERVICE_PORT = new URL(kube.url).port;
    const result = await kubernetesAdapter.deliver(deliveryContext(payload, config, null));
    expect(result.status).toBe("delivered");
    expect(kube.requests[0].path).toBe("/apis/batch/v1/namespaces/envforge/jobs");
    expect(kube.requests[0].authorization).toBe(`Bearer ${TOKEN}`);

    writeFileSync(path.join(sa, "token"), "rotated-token");
    const poll = await failure(kubernetesAdapter.poll!(deliveryContext(payload, config, null), result.externalId!));
    expect(kube.requests.at(-1)!.authorization).toBe("Bearer rotated-token");
    expect(poll.message).toContain("401");
    expect(poll.message).not.toContain("rotated-token");
  });

  it("kubeconfig: current-context, server, certificate-authority-data and a user token; another context by name", async () => {
    kube = await startFakeKubernetes({ token: TOKEN, tls: { key: serverKey, cert: serverCert } });
    const file = path.join(dir, "token.kubeconfig");
    writeFileSync(
      file,
      yaml({
        apiVersion: "v1",
        kind: "Config",
        "current-context": "train",
        clusters: [
          { name: "lab", cluster: { server: kube.url, "certificate-authority-data": Buffer.from(serverCert).toString("base64") } },
          { name: "elsewhere", cluster: { server: "https://10.255.255.1:6443" } },
        ],
        users: [
          { name: "trainer", user: { token: TOKEN } },
          { name: "sso", user: { exec: { command: "kubelogin", apiVersion: "client.authentication.k8s.io/v1" } } },
        ],
        contexts: [
          { name: "train", context: { cluster: "lab", user: "trainer", namespace: "envforge" } },
          { name: "sso", context: { cluster: "lab", user: "sso" } },
        ],
      }),
    );
    const config = { auth: "kubeconfig", kubeconfigPath: file, ...job };
    const result = await kubernetesAdapter.deliver(deliveryContext(samplePayload(), config, null));
    expect(result.status).toBe("delivered");
    expect(kube.requests[0]).toMatchObject({ path: "/apis/batch/v1/namespaces/envforge/jobs", authorization: `Bearer ${TOKEN}` });

    const sso = await failure(kubernetesAdapter.deliver(deliveryContext(samplePayload(), { ...config, context: "sso" }, null)));
    expect(sso.message).toMatch(/exec\/auth-provider plugin/);
    const missing = await failure(kubernetesAdapter.deliver(deliveryContext(samplePayload(), { ...config, context: "nope" }, null)));
    expect(missing.message).toContain('no context named "nope"');
    expect(kubernetesAdapter.checkConfig({ auth: "kubeconfig", ...job }).map((e) => e.path)).toEqual(["kubeconfigPath"]);
  });

  it("kubeconfig: a client certificate and key from files next to it, CA from a file", async () => {
    kube = await startFakeKubernetes({ token: "not-used", tls: { key: serverKey, cert: serverCert, clientCa: clientCert } });
    const folder = path.join(dir, "kube");
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, "ca.crt"), serverCert);
    writeFileSync(path.join(folder, "admin.crt"), clientCert);
    writeFileSync(path.join(folder, "admin.key"), clientKey);
    const file = path.join(folder, "config");
    writeFileSync(
      file,
      yaml({
        "current-context": "admin@lab",
        clusters: [{ name: "lab", cluster: { server: kube.url, "certificate-authority": "ca.crt" } }],
        users: [{ name: "admin", user: { "client-certificate": "admin.crt", "client-key": "admin.key" } }],
        contexts: [{ name: "admin@lab", context: { cluster: "lab", user: "admin" } }],
      }),
    );
    const result = await kubernetesAdapter.deliver(
      deliveryContext(samplePayload(), { auth: "kubeconfig", kubeconfigPath: file, ...job }, null),
    );
    expect(result.status).toBe("delivered");
    expect(kube.requests[0].authorization).toBeUndefined();
    expect(kube.requests[0].path).toBe("/apis/batch/v1/namespaces/default/jobs");

    // without the certificate the same server answers 401
    writeFileSync(file, readFileSync(file, "utf8").replace(/client-certificate: admin.crt\n\s*client-key: admin.key/, "token: wrong"));
    const refused = await failure(
      kubernetesAdapter.deliver(deliveryContext(samplePayload(), { auth: "kubeconfig", kubeconfigPath: file, ...job }, null)),
    );
    expect(refused.message).toContain("401");
  });

  it("refuses a Job template whose pods restart Always, naming the field", () => {
    const template = (restartPolicy: string) => ({
      apiServer: "https://k8s.test",
      jobTemplate: { spec: { template: { spec: { restartPolicy, containers: [{ name: "t", image: "i" }] } } } },
    });
    expect(kubernetesAdapter.checkConfig(template("Always"))).toEqual([
      { path: "jobTemplate.spec.template.spec.restartPolicy", message: expect.stringContaining("Never") },
    ]);
    expect(kubernetesAdapter.checkConfig(template("OnFailure"))).toEqual([]);
    expect(kubernetesAdapter.checkConfig(template("Never"))).toEqual([]);
  });
});

describe("kubernetes: the dispatch's callback key", () => {
  it("goes into a Secret the Job's containers read it from, never into the manifest; cancel deletes both", async () => {
    kube = await startFakeKubernetes({ token: TOKEN });
    const payload = samplePayload();
    const key = "efk_dispatch-key-SECRET-77";
    const ctx = { ...deliveryContext(payload, { apiServer: kube.url, namespace: "envforge", ...job }, TOKEN), callbackKey: key };
    const result = await kubernetesAdapter.deliver(ctx);
    const secretName = `${result.externalId}-key`;
    expect(kube.secrets.get(`envforge/${secretName}`)).toMatchObject({ kind: "Secret", stringData: { ENVFORGE_API_KEY: key } });
    const created = kube.requests.find((r) => r.path.endsWith("/jobs") && r.method === "POST")!.body!;
    expect(JSON.stringify(created)).not.toContain(key);
    const container = ((created.spec as any).template.spec.containers as any[])[0];
    expect(container.env).toContainEqual({
      name: "ENVFORGE_API_KEY",
      valueFrom: { secretKeyRef: { name: secretName, key: "ENVFORGE_API_KEY" } },
    });
    // a resend finds both in place
    expect((await kubernetesAdapter.deliver(ctx)).externalId).toBe(result.externalId);
    await kubernetesAdapter.cancel!(ctx, result.externalId!);
    expect(kube.secrets.size).toBe(0);
  });
});
