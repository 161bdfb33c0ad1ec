import Type, { type Static } from 'typebox';

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/**
 * U+0000 is refused in stored text: FerretDB on PostgreSQL cannot store it, so the writer would
 * retry one such plant forever and stall its partition.
 */
const WITHOUT_NUL = '^[^\\u0000]*$';

/**
 * `id` is a bigint after lossless parsing (see json.ts): every integer literal within int64
 * arrives as a bigint, anything else (1.5, 1e3, "1", 2^63) does not and is refused.
 */
export const NewPlant = Type.Object({
  id: Type.BigInt({ description: 'Identification number of the plant', format: 'int64' }),
  name: Type.String({ description: 'The name of the plant', pattern: WITHOUT_NUL }),
  tag: Type.Optional(Type.String({ description: 'Tag to specify the type', pattern: WITHOUT_NUL })),
});
export type NewPlant = Static<typeof NewPlant>;

export const Plant = Type.Object({
  name: Type.String({ description: 'The name of the plant', pattern: WITHOUT_NUL }),
  tag: Type.Optional(Type.String({ description: 'Tag to specify the type', pattern: WITHOUT_NUL })),
});
export type Plant = Static<typeof Plant>;

/** The stored plant without its id, and without unknown properties the client sent. */
export function plantOf(plant: NewPlant | Plant): Plant {
  return plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag };
}

export function samePlant(a: Plant, b: Plant): boolean {
  return a.name === b.name && a.tag === b.tag;
}

/** On the wire the id is a JSON integer with every digit; after lossless parsing, a bigint. */
export const INT64_ON_THE_WIRE = { type: 'integer', format: 'int64' } as const;
