import { errorBody } from '../../../../shared/contracts/errors.ts';
import {
  plantOf,
  samePlant,
  type NewPlant,
  type Plant,
} from '../../../../shared/contracts/plant.ts';
import type { Reply } from '../../../../shared/contracts/reply.ts';
import type { PlantKey, PlantStore } from './plant-store.ts';

/** The outcome of each command known once the insert is done: undefined where a read must tell. */
export type KnownOutcomes = readonly (Reply | undefined)[];

/**
 * Answers a batch of create commands in order, with one insert and, for ids stored before, a read
 * of each (id, name) among their commands (in parallel): the first command of an id decides what
 * is stored unless the id was stored before; every command whose content equals the stored plant
 * gets 200 with it, every other gets 4009 (an id stored before and found under none of the names
 * asked for is stored with another name). When some must be read back, `inserted` hears the
 * outcomes known before the reads, so that their commands need not wait for them.
 */
export async function createPlants(
  commands: readonly NewPlant[],
  store: PlantStore,
  inserted: (known: KnownOutcomes) => void = () => undefined,
): Promise<Reply[]> {
  const firstOfEachId = new Map<bigint, NewPlant>();
  for (const command of commands)
    if (!firstOfEachId.has(command.id)) firstOfEachId.set(command.id, command);

  const alreadyStored = await store.insertNew([...firstOfEachId.values()]);
  const stored = new Map<bigint, Plant>(
    [...firstOfEachId]
      .filter(([id]) => !alreadyStored.has(id))
      .map(([id, command]) => [id, plantOf(command)]),
  );
  if (alreadyStored.size > 0) {
    inserted(
      commands.map((command) =>
        alreadyStored.has(command.id) ? undefined : outcome(command, stored.get(command.id)),
      ),
    );
    const keys = new Map<string, PlantKey>();
    for (const { id, name } of commands) {
      if (alreadyStored.has(id)) keys.set(JSON.stringify([String(id), name]), { id, name });
    }
    for (const [id, plant] of await store.findByIdAndName([...keys.values()]))
      stored.set(id, plant);
  }

  return commands.map((command) => outcome(command, stored.get(command.id)));
}

/** 200 with the plant stored under the command's id when its content is the command's, else 4009. */
function outcome(command: NewPlant, plant: Plant | undefined): Reply {
  if (plant !== undefined && samePlant(plant, plantOf(command))) return { status: 200, plant };
  return {
    status: 400,
    error: errorBody(
      'conflictingPlant',
      `A plant with id ${command.id} already exists with a different name or tag`,
    ),
  };
}
