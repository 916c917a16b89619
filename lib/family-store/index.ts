/** Families as the server sees them: the built-in ones plus those registered through the API. */
import { asc, eq } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { families } from "@/lib/db/schema";
import { Conflict, Invalid, NotFound, parseOrThrow } from "@/lib/errors";
import { builtinFamilies, customFamilyFromDefinition, familyRegistrationSchema, getBuiltinFamily } from "@/lib/families/registry";
import type { FamilyDefinition } from "@/lib/families/types";
import { recordAudit } from "@/lib/audit";
import type { Principal } from "@/lib/auth/principal";

/** The public shape of a family in the API. */
export function familyView(f: FamilyDefinition) {
  return { id: f.id, version: f.version, description: f.description, builtin: f.builtin, fields: f.fields, jsonSchema: f.jsonSchema };
}

/** Every family: built-ins first, then registered ones by id. */
export async function listFamilies(db: Db): Promise<FamilyDefinition[]> {
  const rows = await db.select().from(families).orderBy(asc(families.id));
  const custom = rows.map((r) => {
    const built = customFamilyFromDefinition({
      id: r.id,
      version: r.version,
      jsonSchema: r.jsonSchema as Record<string, unknown>,
      fields: r.fields as never,
    });
    if (!built.ok) throw new Error(`Stored family ${r.id} no longer builds: ${built.errors[0]?.message}`);
    return built.family;
  });
  return [...Object.values(builtinFamilies), ...custom];
}

/** One family by id, or 404. */
export async function getFamily(db: Db, id: string): Promise<FamilyDefinition> {
  const builtin = getBuiltinFamily(id);
  if (builtin) return builtin;
  const [r] = await db.select().from(families).where(eq(families.id, id));
  if (!r) throw new NotFound(`Family '${id}' does not exist; GET /api/v1/families lists them.`);
  const built = customFamilyFromDefinition({
    id: r.id,
    version: r.version,
    jsonSchema: r.jsonSchema as Record<string, unknown>,
    fields: r.fields as never,
  });
  if (!built.ok) throw new Error(`Stored family ${r.id} no longer builds`);
  return built.family;
}

/** Register a custom family from a JSON Schema and field metadata. */
export async function registerFamily(db: Db, body: unknown, actor: Principal): Promise<FamilyDefinition> {
  const input = parseOrThrow(familyRegistrationSchema, body);
  if (getBuiltinFamily(input.id)) throw new Conflict(`'${input.id}' is a built-in family; choose another id.`);
  const built = customFamilyFromDefinition(input);
  if (!built.ok) {
    throw new Invalid(`The family definition is not valid: ${built.errors[0].path}: ${built.errors[0].message}`, built.errors);
  }
  const inserted = await db
    .insert(families)
    .values({ id: input.id, version: String(input.version), jsonSchema: input.jsonSchema, fields: input.fields, createdBy: actor.actor })
    .onConflictDoNothing()
    .returning({ id: families.id });
  if (inserted.length === 0) throw new Conflict(`A family with id '${input.id}' is registered already.`);
  await recordAudit(db, {
    projectId: null,
    actor: actor.actor,
    action: "family.register",
    entity: "family",
    entityId: input.id,
    after: { version: input.version },
  });
  return built.family;
}
