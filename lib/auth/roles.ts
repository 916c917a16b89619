/** Roles and the permission scopes they grant; checked on the server and mirrored in the UI. */
export const ROLES = ["admin", "reviewer", "ingest", "viewer"] as const;
export type Role = (typeof ROLES)[number];

export type Scope =
  | "projects:read"
  | "projects:create"
  | "projects:manage"
  | "families:write"
  | "generations:write"
  | "rollouts:write"
  | "proposals:create"
  | "proposals:review"
  | "annotations:write"
  | "targets:manage"
  | "dispatch:create"
  | "keys:manage"
  | "users:manage"
  | "audit:read"
  /** a user's own saved explorer views (private data, not project state): every role that reads a project's rollouts */
  | "views:write";

const GRANTS: Record<Role, readonly Scope[]> = {
  admin: [
    "projects:read",
    "projects:create",
    "projects:manage",
    "families:write",
    "generations:write",
    "rollouts:write",
    "proposals:create",
    "proposals:review",
    "annotations:write",
    "targets:manage",
    "dispatch:create",
    "keys:manage",
    "users:manage",
    "audit:read",
    "views:write",
  ],
  reviewer: [
    "projects:read",
    "generations:write",
    "proposals:create",
    "proposals:review",
    "annotations:write",
    "dispatch:create",
    "audit:read",
    "views:write",
  ],
  ingest: ["projects:read", "generations:write", "rollouts:write"],
  viewer: ["projects:read", "audit:read", "views:write"],
};

/** Whether `role` carries `scope`. */
export function hasScope(role: Role, scope: Scope): boolean {
  return GRANTS[role].includes(scope);
}

/** Whether `value` names a role. */
export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}
