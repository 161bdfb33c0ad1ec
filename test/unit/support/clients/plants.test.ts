import { describe, expect, it } from 'vitest';
import { aPlant } from '#test/support/clients/plants.ts';

describe('The plant factory of the tests', () => {
  it('When plants are made without fields, then each has an id of its own and a name made from it', () => {
    const [first, second] = [aPlant(), aPlant()];

    expect(first.id).not.toBe(second.id);
    expect(JSON.parse(first.body)).toEqual({ id: Number(first.id), name: first.name });
    expect(first.answer).toEqual({ name: `Plant ${String(first.id)}` });
  });

  it('When an int64 id and a tag are given, then the body carries the id digit for digit and the answer the tag', () => {
    const plant = aPlant({ id: 9223372036854775807n, name: 'Monstera "deliciosa"', tag: 'aroid' });

    expect(plant.body).toBe(
      '{"id": 9223372036854775807, "name": "Monstera \\"deliciosa\\"", "tag": "aroid"}',
    );
    expect(plant.answer).toEqual({ name: 'Monstera "deliciosa"', tag: 'aroid' });
  });

  it('When another version of a plant is made, then it keeps the id and changes only what is given', () => {
    const ficus = aPlant({ name: 'Ficus', tag: 'fig' });

    const conflicting = ficus.with({ name: 'Cactus' });

    expect([conflicting.id, conflicting.name, conflicting.tag]).toEqual([
      ficus.id,
      'Cactus',
      'fig',
    ]);
  });
});
