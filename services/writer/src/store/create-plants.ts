import { errorBody } from '#shared/contracts/errors.ts';
import { plantOf, samePlant, type NewPlant, type Plant } from '#shared/contracts/plant.ts';
import type { Reply } from '#shared/contracts/reply.ts';
import type { PlantKey, PlantStore } from './plant-store.ts';

/**
 * How long an insert goes unanswered before its batch's plants are read beside it, and the most
 * (id, name) pairs read so: against a store that answers in milliseconds nothing is read twice,
 * and a store slowed by load, whose batches are larger, is not given more to do.
 */
const READ_BESIDE_AFTER_MS = 100;
const READ_BESIDE_MAX_KEYS = 16;

/** The outcome of each command known once the insert is done: undefined where a read must tell. */
export type KnownOutcomes = readonly (Reply | undefined)[];

/**
 * Answers a batch of create commands in order, with one insert and, for ids stored before, a read
 * of each (id, name) among their commands (in parallel): the first command of an id decides what
 * is stored unless the id was stored before; every command whose content equals the stored plant
 * gets 200 with it, every other gets 4009 (an id stored before and found under none of the names
 * asked for is stored with another name). When some must be read back, `inserted` hears the
 * outcomes known before the reads, so that their commands need not wait for them; against a slow
 * store a small batch is read beside its insert (readBesideSlowInsert).
 */
export async function createPlants(
  commands: readonly NewPlant[],
  store: PlantStore,
  inserted: (known: KnownOutcomes) => void = () => undefined,
): Promise<Reply[]> {
  const firstOfEachId = new Map<bigint, NewPlant>();
  for (const command of commands)
    if (!firstOfEachId.has(command.id)) firstOfEachId.set(command.id, command);

  const inserting = store.insertNew([...firstOfEachId.values()]);
  const readBeside = readBesideSlowInsert(commands, store);
  const alreadyStored = await inserting.finally(readBeside.cancel);
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
    for (const [id, plant] of await readBeside.found())
      if (alreadyStored.has(id)) stored.set(id, plant);
    // Not found beside the insert: stored with another name, or by another writer meanwhile.
    const unread = keysOf(commands.filter(({ id }) => alreadyStored.has(id) && !stored.has(id)));
    if (unread.length > 0)
      for (const [id, plant] of await store.findByIdAndName(unread)) stored.set(id, plant);
  }

  return commands.map((command) => outcome(command, stored.get(command.id)));
}

/** Each (id, name) of the commands, once. */
function keysOf(commands: readonly NewPlant[]): PlantKey[] {
  const keys = new Map<string, PlantKey>();
  for (const { id, name } of commands) keys.set(JSON.stringify([String(id), name]), { id, name });
  return [...keys.values()];
}

/**
 * The plants of a batch of at most READ_BESIDE_MAX_KEYS (id, name) pairs, read while its insert
 * is still unanswered after READ_BESIDE_AFTER_MS: against a slow store, a command whose plant was
 * stored before (a retry) is then answered after one round trip instead of two. Stored plants
 * never change, so a plant found beside the insert is the one the insert found; one not found may
 * have been stored meanwhile, and is read again. A failed read finds nothing.
 */
function readBesideSlowInsert(
  commands: readonly NewPlant[],
  store: PlantStore,
): { cancel: () => void; found: () => Promise<Map<bigint, Plant>> } {
  const keys = keysOf(commands);
  let reading: Promise<Map<bigint, Plant>> | undefined;
  const timer =
    keys.length > READ_BESIDE_MAX_KEYS
      ? undefined
      : setTimeout(() => {
          reading = store.findByIdAndName(keys).catch(() => new Map<bigint, Plant>());
        }, READ_BESIDE_AFTER_MS);
  return {
    cancel: () => {
      clearTimeout(timer);
    },
    found: () => reading ?? Promise.resolve(new Map()),
  };
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
