import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import * as tar from "tar";
import { signIn } from "./session";

const admin = { Authorization: "Bearer e2e-bootstrap-token-0123456789" };
const fixtures = process.env.ENVFORGE_FIXTURES ?? path.resolve(import.meta.dirname, "../../shared/fixtures");

test("a Harbor task's page shows its instruction, task.toml fields, file tree, highlighted text and a binary notice", async ({
  page,
  request,
}) => {
  const tasks = path.join(fixtures, "harbor-tasks", "tasks");
  expect(fs.existsSync(tasks), `fixtures missing at ${tasks}`).toBe(true);
  expect(
    (
      await request.post("/api/v1/projects", { headers: admin, data: { slug: "tasks-e2e", name: "Harbor tasks", family: "terminal-task" } })
    ).status(),
  ).toBe(201);
  const archive = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "e2e-tasks-")), "tasks.tar.gz");
  await tar.c({ gzip: true, file: archive, cwd: path.dirname(tasks), portable: true }, ["tasks"]);
  const created = await request.post("/api/v1/projects/tasks-e2e/imports?kind=harbor-tasks&filename=tasks.tar.gz", {
    headers: { ...admin, "content-type": "application/gzip" },
    data: fs.readFileSync(archive),
  });
  expect(created.status()).toBe(202);
  const id = (await created.json()).id;
  await expect
    .poll(async () => (await (await request.get(`/api/v1/imports/${id}`, { headers: admin })).json()).status, { timeout: 60_000 })
    .toBe("succeeded");

  await signIn(page);
  await page.goto("/projects/tasks-e2e/environments/describe-image");
  await expect(page.getByTestId("task-instruction")).toBeVisible();
  await expect(page.getByTestId("task-instruction").locator("p").first()).not.toBeEmpty();
  await expect(page.getByTestId("task-toml").getByRole("row", { name: /agent\.timeout_sec/ })).toContainText("900");
  const files = page.getByRole("list", { name: "Task files" });
  await files.getByRole("button", { name: "Dockerfile" }).click();
  const viewer = page.getByTestId("task-file-viewer");
  await expect(viewer.locator(".cm-content")).toContainText("FROM");
  await page.screenshot({ path: "test-results/screens/task-environment.png", fullPage: true });
  await files.getByRole("button", { name: "image.png" }).click();
  await expect(viewer.getByTestId("binary-notice")).toContainText("Binary file");
});
