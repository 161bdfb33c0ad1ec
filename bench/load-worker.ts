// The worker thread of `loadPlants` (load.ts): runs one load and posts its result.
import { parentPort, workerData } from 'node:worker_threads';
import { runLoad, type LoadOptions } from './load.ts';

parentPort?.postMessage(await runLoad(workerData as LoadOptions));
