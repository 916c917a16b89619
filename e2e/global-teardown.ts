import fs from "node:fs";
import path from "node:path";
import { E2E_DATA } from "./global-setup";

/** Stops the app with SIGTERM (it stops its embedded Postgres) and waits for it to exit. */
export default async function globalTeardown() {
  const pidFile = path.join(E2E_DATA, "server.pid");
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, "utf8"));
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    return;
  }
  for (let i = 0; i < 300; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  process.kill(pid, "SIGKILL");
}
