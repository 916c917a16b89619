/** Where an audit event's entity lives in the UI. */

/** An audit event as the audit page receives it. */
export interface AuditEventView {
  id: number;
  at: string;
  actor: string;
  action: string;
  entity: string;
  entityId: string;
  before?: unknown;
  after?: unknown;
}

/** A field of the event's after (else before) state, when it is a string or number. */
function stateField(e: AuditEventView, name: string): string | undefined {
  for (const state of [e.after, e.before]) {
    const v = state && typeof state === "object" ? (state as Record<string, unknown>)[name] : undefined;
    if (typeof v === "string" || typeof v === "number") return String(v);
  }
  return undefined;
}

/**
 * The page of the entity an audit event touched, or null when it has none: proposal items and
 * comments open their proposal (the id is in the event's state), targets and imports their lists.
 */
export function auditEntityHref(slug: string, e: AuditEventView): string | null {
  const project = `/projects/${encodeURIComponent(slug)}`;
  const id = encodeURIComponent(e.entityId);
  switch (e.entity) {
    case "project":
      return project;
    case "generation":
      return `${project}/generations/${id}`;
    case "environment":
      return `${project}/environments/${id}`;
    case "rollout":
      return `${project}/rollouts/${id}`;
    case "proposal":
      return `${project}/proposals/${id}`;
    case "proposal_item":
    case "comment": {
      const proposal = stateField(e, "proposalId");
      return proposal ? `${project}/proposals/${encodeURIComponent(proposal)}` : null;
    }
    case "dispatch":
      return `${project}/dispatches/${id}`;
    case "target":
      return `${project}/targets`;
    case "import":
      return project;
    case "family":
      return `/families/${id}`;
    default:
      return null;
  }
}
