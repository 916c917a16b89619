/**
 * Register a custom family in the browser: the form names each problem's field (bad JSON with its line,
 * a level the schema does not allow, a taken id from the server), the family then shows in the list and
 * a new project can use it.
 */
import { expect, test, type Page } from "@playwright/test";
import { hydrated, signIn } from "./session";

const SCHEMA = `{
  "type": "object",
  "properties": {
    "width": { "type": "integer", "minimum": 3, "maximum": 12 },
    "wind": { "type": "number", "minimum": 0, "maximum": 1 },
    "terrain": { "type": "string", "enum": ["flat", "hills", "peaks"] }
  },
  "required": ["width", "wind", "terrain"],
  "additionalProperties": false
}`;

/** Replace the CodeMirror editor's whole text, as a person pasting would. */
async function setSchema(page: Page, text: string) {
  const editor = page.getByTestId("family-schema-editor").locator(".cm-content");
  await editor.click();
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(text);
}

test("an admin registers a family with the form, sees it listed and creates a project with it", async ({ page }) => {
  await signIn(page);
  await page.goto("/families");
  await page.getByRole("link", { name: "Register a family" }).click();
  await expect(page).toHaveURL(/\/families\/new$/);
  await hydrated(page);

  const form = page.getByTestId("register-family");
  await form.getByLabel("Id (lowercase, dashes)").fill("e2e-hills");
  await form.getByLabel("Description").fill("Hills with wind");

  // not JSON: the problem names jsonSchema and the line
  await setSchema(page, SCHEMA.replace('"wind"', "wind"));
  await form.getByRole("button", { name: "Register family" }).click();
  await expect(page.getByTestId("family-problems")).toContainText("jsonSchema");
  await expect(page.getByTestId("family-problems")).toContainText("line 5");

  // valid JSON; the fields come from the schema, then one level the enum lacks
  await setSchema(page, SCHEMA);
  await form.getByRole("button", { name: "Fields from the schema" }).click();
  const rows = form.getByTestId("family-field-row");
  await expect(rows).toHaveCount(3);
  await form.getByLabel("Field 1 difficulty").selectOption("up");
  await form.getByLabel("Field 2 direction").selectOption("uncertainty");
  await form.getByLabel("Field 3 levels").fill("flat, hills, mountains");
  await form.getByRole("button", { name: "Register family" }).click();
  await expect(page.getByTestId("family-problems")).toContainText("fields.2.levels.2");
  await expect(form.getByLabel("Field 3 levels")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByTestId("field-2-levels-error")).toContainText("mountains");
  await page.screenshot({ path: "test-results/screens/family-register-errors.png", fullPage: true });

  await form.getByLabel("Field 3 levels").fill("flat, hills, peaks");
  await form.getByRole("button", { name: "Register family" }).click();
  await expect(page).toHaveURL(/\/families\/e2e-hills$/);
  const fields = page.getByTestId("family-fields");
  await expect(fields.getByRole("row", { name: /width/ })).toBeVisible();
  await expect(fields.getByRole("row", { name: /wind/ })).toContainText("uncertainty");
  await page.screenshot({ path: "test-results/screens/family-registered.png", fullPage: true });

  // listed among the families, marked registered
  await page.goto("/families");
  await expect(page.getByRole("link", { name: /e2e-hills/ })).toContainText("registered");

  // the same id again: the server's 409 is shown
  await page.goto("/families/new");
  await hydrated(page);
  await form.getByLabel("Id (lowercase, dashes)").fill("e2e-hills");
  await form.getByRole("button", { name: "Register family" }).click();
  await expect(page.getByTestId("family-problems")).toContainText("registered already");

  // a new project can use it
  await page.goto("/");
  await page.getByText("New project").click();
  const newProject = page.getByTestId("new-project");
  await newProject.getByLabel("Project slug").fill("hills-e2e");
  await newProject.getByLabel("Project name").fill("Hills");
  await newProject.getByLabel("Family").selectOption("e2e-hills");
  await newProject.getByRole("button", { name: "Create project" }).click();
  await expect(page).toHaveURL(/\/projects\/hills-e2e$/);
  await expect(page.getByText("e2e-hills").first()).toBeVisible();
});
