/** What the HTTP-level integration tests wait for and expect: an API error, a dispatch reaching a status. */
import { ApiError, type EnvForgeClient } from "@/cli/client";

/** The ApiError `p` rejects with; fails the test when it resolves or rejects with anything else. */
export async function apiFailure(p: Promise<unknown>): Promise<ApiError> {
  const e = await p.then(
    () => null,
    (err) => err,
  );
  if (!(e instanceof ApiError)) throw new Error(`expected an API error, got ${e}`);
  return e;
}

/** Polls GET /dispatches/{id} until its status is one of `statuses`; fails with the timeline after `timeoutMs`. */
export async function untilDispatch<T extends { status: string; events: unknown[] }>(
  client: EnvForgeClient,
  id: string,
  statuses: string[],
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const d = await client.request<T>("GET", `/api/v1/dispatches/${id}`);
    if (statuses.includes(d.status)) return d;
    if (Date.now() > deadline) throw new Error(`dispatch ${id} is ${d.status} after ${timeoutMs} ms: ${JSON.stringify(d.events)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
