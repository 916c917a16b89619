/**
 * Credentials of the Kubernetes adapter, from one of three sources:
 * - "token": the target's secret as a bearer token and the target's apiServer/caCert;
 * - "inCluster": EnvForge runs in a pod: the mounted service account (token, ca.crt, namespace
 *   under /var/run/secrets/kubernetes.io/serviceaccount, or serviceAccountDir) and the API server
 *   from KUBERNETES_SERVICE_HOST/PORT, as client-go's rest.InClusterConfig reads them. The token
 *   is read again on every request: projected tokens rotate.
 * - "kubeconfig": a kubeconfig file (YAML): its current-context (or `context`), the cluster's
 *   server and certificate-authority(-data), the user's token(-file) or client certificate and key
 *   (-data or files, relative to the kubeconfig's folder). exec and auth-provider plugins are not run.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { DeliveryError } from "../types";
import { processEnvironment } from "@/lib/config/env";

/** Where Kubernetes mounts a pod's service account. */
export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

export interface KubernetesCredentials {
  apiServer: string;
  /** bearer token (absent with client-certificate auth) */
  token: string | null;
  /** PEM CA bundle to trust */
  ca?: string;
  /** PEM client certificate and key */
  cert?: string;
  key?: string;
  insecureSkipTlsVerify: boolean;
  /** namespace the credentials point at (service account's, or the kubeconfig context's), if any */
  namespace?: string;
  /** what they came from, for messages */
  source: string;
}

const notUsable = (message: string) => new DeliveryError(message, false);

async function readText(file: string, what: string): Promise<string> {
  try {
    return await fs.readFile(file, "utf8");
  } catch (e) {
    throw notUsable(`Cannot read ${what} at ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}).`);
  }
}

/** In-cluster credentials: the mounted service account and KUBERNETES_SERVICE_HOST/PORT. */
export async function inClusterCredentials(
  dir = SERVICE_ACCOUNT_DIR,
  env: Record<string, string | undefined> = processEnvironment(),
): Promise<KubernetesCredentials> {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) {
    throw notUsable(
      'auth "inCluster" needs KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT, which Kubernetes sets in every pod: is EnvForge running in a pod?',
    );
  }
  const token = (await readText(path.join(dir, "token"), "the service-account token")).trim();
  if (!token) throw notUsable(`The service-account token at ${path.join(dir, "token")} is empty.`);
  let ca: string | undefined;
  try {
    ca = await fs.readFile(path.join(dir, "ca.crt"), "utf8");
  } catch {
    ca = undefined; // then the system's CAs are trusted
  }
  let namespace: string | undefined;
  try {
    namespace = (await fs.readFile(path.join(dir, "namespace"), "utf8")).trim() || undefined;
  } catch {
    namespace = undefined;
  }
  const hostPart = host.includes(":") ? `[${host}]` : host; // IPv6 service hosts
  return {
    apiServer: `https://${hostPart}:${port}`,
    token,
    ca,
    insecureSkipTlsVerify: false,
    namespace,
    source: `service account in ${dir}`,
  };
}

type Named<K extends string> = { name?: unknown } & Partial<Record<K, Record<string, unknown>>>;

function findNamed<K extends string>(list: unknown, name: string, key: K, file: string, field: string): Record<string, unknown> {
  const entry = Array.isArray(list) ? (list as Named<K>[]).find((e) => e && e.name === name) : undefined;
  if (!entry || !entry[key] || typeof entry[key] !== "object") throw notUsable(`The kubeconfig ${file} has no ${field} named "${name}".`);
  return entry[key] as Record<string, unknown>;
}

async function dataOrFile(
  entry: Record<string, unknown>,
  dataKey: string,
  fileKey: string,
  base: string,
  what: string,
): Promise<string | undefined> {
  const data = entry[dataKey];
  if (typeof data === "string" && data !== "") return Buffer.from(data, "base64").toString("utf8");
  const file = entry[fileKey];
  if (typeof file === "string" && file !== "") return readText(path.resolve(base, file), what);
  return undefined;
}

/** Credentials from a kubeconfig file: its current-context unless `contextName` is given. */
export async function kubeconfigCredentials(file: string, contextName?: string): Promise<KubernetesCredentials> {
  const text = await readText(file, "the kubeconfig");
  let doc: Record<string, unknown>;
  try {
    doc = parseYaml(text) as Record<string, unknown>;
  } catch (e) {
    throw notUsable(`The kubeconfig ${file} is not valid YAML: ${(e as Error).message.split("\n")[0]}`);
  }
  if (!doc || typeof doc !== "object") throw notUsable(`The kubeconfig ${file} is empty.`);
  const name = contextName ?? (typeof doc["current-context"] === "string" ? doc["current-context"] : "");
  if (!name) throw notUsable(`The kubeconfig ${file} has no current-context: set the target's "context".`);
  const context = findNamed(doc.contexts, name, "context", file, "context");
  const cluster = findNamed(doc.clusters, String(context.cluster ?? ""), "cluster", file, "cluster");
  const user = context.user === undefined ? {} : findNamed(doc.users, String(context.user), "user", file, "user");
  const base = path.dirname(path.resolve(file));
  const server = cluster.server;
  if (typeof server !== "string" || !/^https?:\/\//.test(server))
    throw notUsable(`The kubeconfig's cluster "${String(context.cluster)}" has no http(s) server.`);
  if (user.exec || user["auth-provider"]) {
    throw notUsable(
      `The kubeconfig's user "${String(context.user)}" authenticates with an exec/auth-provider plugin, which EnvForge ` +
        `does not run: use a token or a client certificate, or auth "token".`,
    );
  }
  let token: string | null = typeof user.token === "string" && user.token !== "" ? user.token : null;
  if (!token && typeof user.tokenFile === "string")
    token = (await readText(path.resolve(base, user.tokenFile), "the kubeconfig user's tokenFile")).trim();
  const cert = await dataOrFile(user, "client-certificate-data", "client-certificate", base, "the client certificate");
  const key = await dataOrFile(user, "client-key-data", "client-key", base, "the client key");
  if (!token && !(cert && key))
    throw notUsable(`The kubeconfig's user "${String(context.user)}" has neither a token nor a client certificate and key.`);
  const ca = await dataOrFile(cluster, "certificate-authority-data", "certificate-authority", base, "the cluster's certificate authority");
  return {
    apiServer: server,
    token,
    ca,
    cert,
    key,
    insecureSkipTlsVerify: cluster["insecure-skip-tls-verify"] === true,
    namespace: typeof context.namespace === "string" && context.namespace !== "" ? context.namespace : undefined,
    source: `kubeconfig ${file} (context "${name}")`,
  };
}
