/** Starts the real app (`npm start`'s script) on a fresh embedded database for the browser tests. */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
export const E2E_DATA = path.join(root, ".envforge", "e2e");
export const E2E_TOKEN = "e2e-bootstrap-token-0123456789";

export default async function globalSetup() {
  const port = Number(process.env.E2E_PORT ?? 3100);
  fs.rmSync(E2E_DATA, { recursive: true, force: true });
  fs.mkdirSync(E2E_DATA, { recursive: true });
  const log = fs.openSync(path.join(E2E_DATA, "server.log"), "a");
  const child = spawn(process.execPath, [path.join(root, "node_modules", "tsx", "dist", "cli.mjs"), "scripts/start.ts"], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      ENVFORGE_DATA_DIR: E2E_DATA,
      ENVFORGE_DEMO: "1",
      // the demo's first cycles run once; no scheduled cycle may change the generations under a test
      ENVFORGE_DEMO_LOOP_MINUTES: "0",
      ENVFORGE_BOOTSTRAP_TOKEN: E2E_TOKEN,
      DATABASE_URL: "",
    },
    stdio: ["ignore", log, log],
    detached: false,
  });
  fs.writeFileSync(path.join(E2E_DATA, "server.pid"), String(child.pid));
  const deadline = Date.now() + 8 * 60_000; // the first start builds the app
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the app exited during start; see ${path.join(E2E_DATA, "server.log")}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/health`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error("the app did not become healthy within 8 minutes");
    await new Promise((r) => setTimeout(r, 1000));
  }
  // the demo's closed loop builds its first generations in the background; the specs read them
  const loopDeadline = Date.now() + 5 * 60_000;
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/projects/demo-frozenlake`, {
      headers: { authorization: `Bearer ${E2E_TOKEN}` },
    });
    const state = res.ok ? ((await res.json()) as { demoState?: { status: string; message: string } }).demoState : undefined;
    if (state?.status === "idle") break;
    if (state?.status === "failed") throw new Error(`the demo loop failed: ${state.message}; see ${path.join(E2E_DATA, "server.log")}`);
    if (Date.now() > loopDeadline) throw new Error(`the demo loop did not finish within 5 minutes (${state?.status}: ${state?.message})`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}
