/**
 * npm run bench:viewer [-- --messages N] [-- --json <file>] [-- --port P]
 * One rollout with an N-message trajectory (default 5,000, about 10 MB; 50,000 is about 100 MB) in the real app, opened in headless
 * Chromium: time from navigation until the first turns are visible, and from pressing "Last"
 * until the last turn is visible. Median of 5 runs after one warm-up.
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import { chromium, type Page } from "@playwright/test";
import { EnvForgeClient } from "../cli/client";
import { jsonTarget, machine, recordSection, rssSampler, startApp } from "./lib";

const argv = process.argv.slice(2);
const MESSAGES = Number(argv[argv.indexOf("--messages") + 1]) > 2 ? Math.floor(Number(argv[argv.indexOf("--messages") + 1])) : 5000;
const RUNS = 5;
const PORT = Number(argv[argv.indexOf("--port") + 1]) > 0 && argv.includes("--port") ? Number(argv[argv.indexOf("--port") + 1]) : 3093;

function chromiumPath(): string | undefined {
  return [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => p && fs.existsSync(p)) ?? undefined;
}

/** A terminal-agent trajectory: assistant turns with tool calls, long tool outputs, a few retrieved documents. */
function trajectory() {
  const out: unknown[] = [
    { role: "system", content: "You are a terminal agent. Solve the task and run the tests." },
    { role: "user", content: "Fix the failing build in /app." },
  ];
  const log = "npm ERR! code ELIFECYCLE\nnpm ERR! errno 1\n  at Object.<anonymous> (/app/src/index.js:12:7)\n".repeat(45); // ~3.5 KB
  for (let i = out.length; i < MESSAGES; i++) {
    if (i % 2 === 0) {
      out.push({
        role: "assistant",
        content: `Turn ${i}: the build still fails; I will look at the log again and try another fix.`,
        toolCalls: [
          {
            id: `call-${i}`,
            name: "bash",
            arguments: JSON.stringify({ cmd: `cd /app && npm run build 2>&1 | tail -n 80 # attempt ${i}` }),
          },
        ],
        tokens: 40 + (i % 30),
      });
    } else {
      out.push({
        role: "tool",
        toolCallId: `call-${i - 1}`,
        content: `$ npm run build (attempt ${i})\n${log}`,
        ...(i % 50 === 1
          ? {
              retrievedDocuments: [
                { id: `doc-${i}`, title: "npm build troubleshooting", text: "Clear the cache and reinstall.".repeat(20), relevant: true },
                { id: `noise-${i}`, title: "Unrelated changelog", text: "v1.2.3".repeat(50), relevant: false },
              ],
            }
          : {}),
      });
    }
  }
  return out;
}

/**
 * POST a large NDJSON body and wait for the answer however long storing it takes: fetch gives up when
 * the response headers take over 300 s (undici's headersTimeout), which a 100 MB rollout can on a loaded machine.
 */
function postWithoutTimeout(url: string, token: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/x-ndjson", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (text += d));
        res.on("end", () => {
          const summary = (res.statusCode ?? 0) < 300 ? (JSON.parse(text) as { accepted: number }) : null;
          if (summary?.accepted === 1) resolve();
          else reject(new Error(`storing the rollout failed: HTTP ${res.statusCode} ${text.slice(0, 500)}`));
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * Wait until `selector` matches a visible element (a box of some size, not visibility: hidden), checked on every
 * animation frame in the page. Playwright's own `waitFor` re-checks after 0, 20, 50, 100, 100 ms and then every
 * 500 ms, so a turn that shows 300 ms after the click was timed as 770 ms: figures before 2026-12-02 carry that step.
 */
async function visible(page: Page, selector: string): Promise<void> {
  await page.waitForFunction(
    (sel) => {
      const el = document.querySelector(sel);
      if (!el) return false;
      const box = el.getBoundingClientRect();
      return box.width > 0 && box.height > 0 && getComputedStyle(el).visibility !== "hidden";
    },
    selector,
    { polling: "raf", timeout: 60_000 },
  );
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function main() {
  const json = jsonTarget(argv);
  console.log(`[bench:viewer] ${machine()}; ${MESSAGES} messages`);
  const app = await startApp(PORT);
  // the server's memory over the whole run: the 100 MB ingest and every page read (issue 19: <= 1.5 GB)
  const rss = rssSampler();
  rss.watch(app.pid);
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  try {
    const client = new EnvForgeClient({ server: app.url, token: app.token });
    await client.request("POST", "/api/v1/projects", { json: { slug: "bench", name: "Bench", family: "frozenlake-mapf" } });
    await client.request("POST", "/api/v1/projects/bench/generations", {
      json: {
        environments: [
          {
            key: "long",
            config: {
              size: 8,
              num_agents: 1,
              obstacle_density: 0.1,
              slip_probability: 0,
              max_steps: 200,
              min_goal_distance: 2,
              collision: "soft",
              seed: 1,
            },
          },
        ],
      },
    });
    const body = JSON.stringify({
      externalId: "long-1",
      environmentKey: "long",
      policy: "p",
      reward: 0,
      trajectory: trajectory(),
      verifierOutput: "FAILED tests/test_build.py::test_build - exit 1",
    });
    console.log(`[bench:viewer] rollout body ${(body.length / 1e6).toFixed(1)} MB`);
    const ingestStart = performance.now();
    await postWithoutTimeout(`${app.url}/api/v1/projects/bench/rollouts`, app.token, body);
    const ingestSeconds = (performance.now() - ingestStart) / 1000;
    console.log(`[bench:viewer] stored in ${ingestSeconds.toFixed(1)} s`);
    const list = await client.request<{ items: { id: number }[] }>("GET", "/api/v1/projects/bench/rollouts");
    const id = list.items[0].id;

    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    // the first account, from loopback
    await page.goto(`${app.url}/setup`);
    await page.getByLabel("Email").fill("bench@example.com");
    await page.getByLabel("Name").fill("Bench");
    await page.getByLabel(/Password/).fill("bench-password-123");
    await page.getByRole("button", { name: "Create admin account" }).click();
    await page.waitForURL((u) => !u.pathname.startsWith("/setup"));

    const url = `${app.url}/projects/bench/rollouts/${id}`;
    const first: number[] = [];
    const last: number[] = [];
    for (let run = 0; run <= RUNS; run++) {
      const t0 = performance.now();
      await page.goto(url, { waitUntil: "commit" });
      await visible(page, '[data-turn-index="0"]');
      await visible(page, '[data-turn-index="5"]');
      const t1 = performance.now();
      // the viewer must be interactive (hydrated) before "Last" does anything
      await page.locator("html[data-hydrated=true]").waitFor({ state: "attached" });
      const t2 = performance.now();
      await page.getByTestId("trajectory-last").click();
      await visible(page, `[data-turn-index="${MESSAGES - 1}"]`);
      const t3 = performance.now();
      if (run === 0) continue; // warm-up
      first.push(t1 - t0);
      last.push(t3 - t2);
      console.log(`[bench:viewer] run ${run}: first turns ${(t1 - t0).toFixed(0)} ms, scroll to the last turn ${(t3 - t2).toFixed(0)} ms`);
    }
    await page.screenshot({ path: "test-results/bench-viewer-last.png" }).catch(() => undefined);
    const result = {
      firstTurnsVisibleMs: Math.round(median(first)),
      scrollToEndMs: Math.round(median(last)),
      ingestSeconds: Math.round(ingestSeconds * 10) / 10,
      maxRssMb: rss.maxMb(),
    };
    rss.stop();
    if (json) fs.writeFileSync(json, JSON.stringify(result, null, 2) + "\n");
    recordSection(
      "Trajectory viewer (`npm run bench:viewer`)",
      `${new Date().toISOString().slice(0, 10)}, ${machine()}, the real app (production build) and headless Chromium, ` +
        `1440x900. One rollout of ${MESSAGES.toLocaleString("en-US")} messages, ${(body.length / 1e6).toFixed(1)} MB of ` +
        `JSON (tool outputs of ~3.5 KB, tool calls, retrieved documents). Median of ${RUNS} runs after a warm-up.

| measure | median | worst | goal |
|---|---|---|---|
| navigation until the first turns are visible | ${result.firstTurnsVisibleMs} ms | ${Math.round(Math.max(...first))} ms | <= 1,000 ms |
| "Last" pressed until the last turn is visible | ${result.scrollToEndMs} ms | ${Math.round(Math.max(...last))} ms | <= 1,000 ms |

` +
        `Storing the rollout (\`POST .../rollouts\`, one NDJSON line): ${result.ingestSeconds} s. ` +
        `Max server RSS over the run (the Node process serving the app, sampled every 200 ms): ${result.maxRssMb} MB ` +
        `(goal <= 1,536 MB). Load average at the end: ${os
          .loadavg()
          .map((x) => x.toFixed(1))
          .join(", ")}.`,
    );
    console.log(JSON.stringify(result));
  } finally {
    await browser.close();
    await app.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
