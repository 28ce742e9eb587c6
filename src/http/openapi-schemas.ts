// zod -> JSON Schema 2020-12 for the OpenAPI document: shared schemas (those with .meta({ id })) become
// components; an id whose request form differs from its response form (defaults, strictness) gets a
// second component named <id>Input.
import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;
type Io = 'input' | 'output';

function rewriteRefs(value: unknown, names: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, names));
  if (!value || typeof value !== 'object') return value;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/')) {
      const id = v.slice('#/$defs/'.length);
      out[k] = `#/components/schemas/${names.get(id) ?? id}`;
    } else {
      out[k] = rewriteRefs(v, names);
    }
  }
  return out;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export class SchemaCollector {
  readonly components: Record<string, JsonSchema> = {};

  /** The JSON Schema of one zod schema, with shared parts moved to components. */
  convert(schema: z.ZodType, io: Io): JsonSchema {
    const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
    const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
    delete json.$defs;
    delete json.$schema;
    const names = this.nameDefs(defs, io);
    for (const [id, def] of Object.entries(defs)) {
      const name = names.get(id)!;
      const rewritten = rewriteRefs(def, names) as JsonSchema;
      const existing = this.components[name];
      if (existing && !same(existing, rewritten)) throw new Error(`two different schemas are named ${name}`);
      this.components[name] = rewritten;
    }
    return rewriteRefs(json, names) as JsonSchema;
  }

  /**
   * Response schemas keep their id. A request schema keeps it when it is identical to what is already
   * registered under that id, else becomes <id>Input; repeated because renaming one def changes the
   * refs inside the defs that use it.
   */
  private nameDefs(defs: Record<string, JsonSchema>, io: Io): Map<string, string> {
    const names = new Map(Object.keys(defs).map((id) => [id, id]));
    if (io === 'output') return names;
    for (let round = 0; round <= Object.keys(defs).length; round++) {
      let changed = false;
      for (const [id, def] of Object.entries(defs)) {
        if (names.get(id) !== id) continue;
        const existing = this.components[id];
        if (existing && !same(existing, rewriteRefs(def, names))) {
          names.set(id, `${id}Input`);
          changed = true;
        }
      }
      if (!changed) break;
    }
    return names;
  }
}

/** The fields of an object schema (through a pipe's input side), for query and path parameters. */
export function objectShape(schema: z.ZodType | undefined): Record<string, z.ZodType> {
  let current: unknown = schema;
  while (current instanceof z.ZodPipe) current = current.in;
  return current instanceof z.ZodObject ? (current.shape as Record<string, z.ZodType>) : {};
}

/** A field that may be left out (optional or with a default). */
export function isOptional(field: z.ZodType): boolean {
  return field.safeParse(undefined).success;
}
