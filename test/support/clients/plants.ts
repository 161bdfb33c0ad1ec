/** A plant for a test's body: what a client sends, what it is stored as, what a 200 answers. */
export interface TestPlant {
  readonly id: bigint;
  readonly name: string;
  readonly tag?: string;
  /** The NewPlant as JSON, its id as an exact integer literal: a request body or a command value. */
  readonly body: string;
  /** The Plant a 200 answers and a reply carries. */
  readonly answer: { name: string; tag?: string };
  /** The same id with other fields: a conflicting create. */
  with(fields: { name?: string; tag?: string }): TestPlant;
}

let lastId = 0n;

/**
 * A plant with the next id of this test file (each test has a database and topics of its own,
 * so ids need only differ within a file) and a name made from it, unless given.
 */
export function aPlant(
  fields: { id?: bigint | number; name?: string; tag?: string } = {},
): TestPlant {
  const id = fields.id === undefined ? ++lastId : BigInt(fields.id);
  const name = fields.name ?? `Plant ${String(id)}`;
  const answer = fields.tag === undefined ? { name } : { name, tag: fields.tag };
  const tagMember = fields.tag === undefined ? '' : `, "tag": ${JSON.stringify(fields.tag)}`;
  return {
    id,
    name,
    ...(fields.tag === undefined ? {} : { tag: fields.tag }),
    body: `{"id": ${String(id)}, "name": ${JSON.stringify(name)}${tagMember}}`,
    answer,
    with: (other) => aPlant({ id, name, ...fields, ...other }),
  };
}
