// The worker thread of `loadPlants` (load.ts): runs one load, posting a tick each second and then
// its result.
import { parentPort, workerData } from 'node:worker_threads';
import { runLoad, type LoadOptions } from './load.ts';

const result = await runLoad(workerData as LoadOptions, (tick) =>
  parentPort?.postMessage({ tick }),
);
parentPort?.postMessage({ result });
