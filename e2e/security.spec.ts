/**
 * The real server (scripts/start.ts in front of the built Next app): foreign Host names get 421 on
 * pages, API routes and static assets; every response carries the anti-framing, nosniff and
 * referrer headers; next= after sign-in stays on this site; an admin disables an account from the
 * Accounts page and its open session ends at once.
 */
import http from "node:http";
import { expect, test, type APIResponse } from "@playwright/test";
import { ADMIN, signIn } from "./session";

test.describe.configure({ mode: "serial" });

/** The port the app under test listens on (from playwright.config.ts's baseURL). */
const port = () => Number(new URL(test.info().project.use.baseURL!).port);

/** A raw request with exactly this Host (a DNS-rebinding page's browser sends its own name). */
function getWithHost(path: string, host: string): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: port(), path, setHost: false, headers: { host } }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on("error", reject);
    req.end();
  });
}

function expectSecurityHeaders(headers: Record<string, string | string[] | undefined>, what: string) {
  expect(headers["x-frame-options"], what).toBe("DENY");
  expect(String(headers["content-security-policy"]), what).toContain("frame-ancestors 'none'");
  expect(headers["x-content-type-options"], what).toBe("nosniff");
  expect(headers["referrer-policy"], what).toBe("same-origin");
}

/** A static asset the sign-in page loads (Next's hashed chunk under /_next/static). */
async function staticAssetPath(html: string): Promise<string> {
  const m = /(\/_next\/static\/[^"'\s]+\.(?:js|css))/.exec(html);
  expect(m, "the sign-in page references a /_next/static asset").not.toBeNull();
  return m![1];
}

test("the first admin can be created from this machine at a loopback name", async ({ request }) => {
  await signInOnce(request);
});

test("every response carries the security headers: pages, static assets, API, 404s", async ({ request }) => {
  const page = await request.get("/signin");
  expectSecurityHeaders(page.headers(), "/signin");
  const asset = await staticAssetPath(await page.text());
  const responses: [string, APIResponse][] = [
    [asset, await request.get(asset)],
    ["/api/health", await request.get("/api/health")],
    ["/api/v1/projects (401)", await request.get("/api/v1/projects", { headers: { Authorization: "Bearer efk_unknown" } })],
    ["/no-such-page", await request.get("/no-such-page")],
  ];
  expect(responses[0][1].status()).toBe(200);
  expect(responses[3][1].status()).toBe(404);
  for (const [what, res] of responses) expectSecurityHeaders(res.headers(), what);
});

test("a foreign Host gets 421 on pages, API routes and static assets", async ({ request }) => {
  const asset = await staticAssetPath(await (await request.get("/signin")).text());
  for (const path of ["/", "/setup", "/signin", "/api/health", "/api/v1/projects", asset]) {
    for (const host of ["evil.com", `evil.com:${port()}`, "127.0.0.1.evil.com", `localhost:${port()}@evil`, "[::2]"]) {
      const r = await getWithHost(path, host);
      expect(r.status, `${host} ${path}`).toBe(421);
      expectSecurityHeaders(r.headers, `${host} ${path}`);
    }
    for (const host of [`127.0.0.1:${port()}`, `localhost:${port()}`]) {
      expect((await getWithHost(path, host)).status, `${host} ${path}`).not.toBe(421);
    }
  }
});

test("next= after sign-in goes to a path on this site only", async ({ page }) => {
  for (const next of ["//evil.example/x", "/\\evil.example", "/%5Cevil.example", "%2F%2Fevil.example", "javascript:alert(1)"]) {
    await page.context().clearCookies();
    await page.goto(`/signin?next=${encodeURIComponent(next)}`);
    await page.getByLabel("Email").fill(ADMIN.email);
    await page.getByLabel("Password").fill(ADMIN.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("current-user")).toBeVisible();
    expect(new URL(page.url()).host, next).toBe(`127.0.0.1:${port()}`);
    expect(new URL(page.url()).pathname, next).toBe("/");
  }
  await page.context().clearCookies();
  await page.goto(`/signin?next=${encodeURIComponent("/families/frozenlake-mapf")}`);
  await page.getByLabel("Email").fill(ADMIN.email);
  await page.getByLabel("Password").fill(ADMIN.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/families\/frozenlake-mapf$/);
});

test("an admin disables an account on the Accounts page; its open session ends at once", async ({ page, browser }) => {
  const ed = { email: "ed@example.org", name: "Ed", password: "ed-password-123" };
  await signIn(page);
  await page.goto("/settings/users");
  await page.getByLabel("Email").fill(ed.email);
  await page.getByLabel("Name").fill(ed.name);
  await page.getByLabel(/Initial password/).fill(ed.password);
  await page.getByRole("button", { name: "Add account" }).click();
  const row = page.getByTestId("user-row").filter({ hasText: ed.email });
  await expect(row).toContainText("active");

  const edContext = await browser.newContext();
  const edPage = await edContext.newPage();
  await signIn(edPage, ed);

  await row.getByRole("button", { name: "Disable" }).click();
  await expect(row).toContainText("disabled");
  await expect(page.getByRole("status")).toContainText("1 session(s) ended");

  await edPage.reload();
  await expect(edPage).toHaveURL(/\/signin/);
  await edPage.getByLabel("Email").fill(ed.email);
  await edPage.getByLabel("Password").fill(ed.password);
  await edPage.getByRole("button", { name: "Sign in" }).click();
  await expect(edPage.getByText("This account is disabled")).toBeVisible();

  await row.getByRole("button", { name: "Enable" }).click();
  await expect(row).toContainText("active");
  await edPage.getByRole("button", { name: "Sign in" }).click();
  await expect(edPage.getByTestId("current-user")).toContainText("Ed");
  await edContext.close();
});

/** Make sure the admin exists when this spec runs alone (the first-run spec creates it otherwise). */
async function signInOnce(request: import("@playwright/test").APIRequestContext) {
  const r = await request.post("/api/auth/setup", { headers: { Origin: `http://127.0.0.1:${port()}` }, data: ADMIN });
  // 201: created now; 409: the first-run spec did it; anything else means setup is broken
  expect([201, 409], await r.text()).toContain(r.status());
}
