import { readFileSync } from 'node:fs';

/** A line of a Kafka log: when, and what it says without its logger and prefix. */
export interface LogEvent {
  at: number;
  text: string;
}

const LINE =
  /^\[(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d),(\d{3})\] \w+ (?:\[[^\]]*\] )?(.*?)(?: \([\w.$]+\))?$/;
const REBALANCE =
  /Preparing to rebalance|Stabilized group|has left group|removing it from the group|expired|Assignment received/;

/**
 * The group coordinator's account of `group`'s rebalances in `logFiles` (all nodes of a cluster),
 * in time order: who joined or left, when the group was stable again. Kafka logs local time.
 */
export function rebalanceTimeline(logFiles: readonly string[], group: string): LogEvent[] {
  const mentions = [`group ${group} `, `[Group ${group}]`];
  return logFiles
    .flatMap((file) => readFileSync(file, 'utf8').split('\n'))
    .filter((line) => mentions.some((mention) => line.includes(mention)) && REBALANCE.test(line))
    .flatMap((line) => {
      const match = LINE.exec(line);
      if (match === null) return [];
      const [, day, time, millis, text = ''] = match;
      return [{ at: new Date(`${day ?? ''}T${time ?? ''}.${millis ?? ''}`).getTime(), text }];
    })
    .toSorted((a, b) => a.at - b.at);
}

/** The node that became the active KRaft controller last (the highest epoch) in its log. */
export function activeController(logFiles: ReadonlyMap<number, string>): number {
  let newest = { node: -1, epoch: -1 };
  for (const [node, file] of logFiles) {
    for (const match of readFileSync(file, 'utf8').matchAll(
      /Becoming the active controller at epoch (\d+)/g,
    )) {
      const epoch = Number(match[1]);
      if (epoch > newest.epoch) newest = { node, epoch };
    }
  }
  if (newest.node === -1) throw new Error('no node has logged becoming the active controller');
  return newest.node;
}
