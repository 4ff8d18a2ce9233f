import { z } from 'zod';

const omittedWhenNull = (v: unknown) => (v === null ? undefined : v);

/**
 * A tool's input schema in which an explicit `null` for an optional argument (one that may be left out, or has a
 * default) means the same as leaving it out. Models often send `"args": null` (the origins' Python signatures
 * default `args=None`). Required arguments still refuse null.
 *
 * What clients SEE is the JSON Schema of the plain shape: no `type: ["string", "null"]`, which strict clients
 * flag. The tolerance is only in parsing, so the schema stays a promise the server keeps.
 */
export function acceptNullAsOmitted(shape: z.ZodRawShape): z.ZodObject {
  const parsing: Record<string, z.ZodType> = {};
  for (const [key, raw] of Object.entries(shape)) {
    const field = raw as z.ZodType;
    parsing[key] = field.safeParse(undefined).success ? z.preprocess(omittedWhenNull, field) : field;
  }
  const object = z.object(parsing);
  // Converted at the first tools/list, not when the tool is registered at start (a conversion per tool).
  let published: unknown;
  // zod's documented hook for a schema's own JSON Schema: the SDK's tools/list renders the plain shape.
  (object._zod as { toJSONSchema?: () => unknown }).toJSONSchema = () => structuredClone((published ??= slim(z.toJSONSchema(z.object(shape), { target: 'draft-7', io: 'input' }))));
  return object;
}

/**
 * Drops what says nothing to a client but costs bytes in every tools/list: the `$schema` line and zod's integer
 * bounds at ±2^53-1 (an integer is an integer).
 */
function slim<T>(node: T): T {
  if (Array.isArray(node)) return node.map(slim) as T;
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$schema') continue;
    if ((k === 'minimum' || k === 'maximum') && Math.abs(v as number) === Number.MAX_SAFE_INTEGER) continue;
    out[k] = slim(v);
  }
  return out as T;
}
