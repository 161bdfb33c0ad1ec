import { isDeepStrictEqual } from 'node:util';
import { isConclusive, type Answer, type Content } from '../observe/traffic.ts';

export interface StoredPlant {
  name: string;
  tag?: string;
}

export const FINDING_KINDS = [
  'lost',
  'wrong answer',
  'unexpected answer',
  'unsettled',
  'phantom',
  'refused yet stored',
] as const;

export interface Finding {
  kind: (typeof FINDING_KINDS)[number];
  id: bigint;
  detail: string;
}

/**
 * Every answer checked against what the store holds once the run is over: a 200 must be the
 * stored plant and what was asked for, a 4009 must be for content other than the stored one, a
 * request answered 503, 504 or not at all must end 200 or 4009 on retry, every other answer is
 * unexpected, and every stored plant must be content some request asked for. With
 * `refusalsFinal` (the overload scenario, whose clients do not retry), a 503 is not retried but
 * must have created nothing: a gateway refuses before it publishes.
 */
export function verdict(
  answers: readonly Answer[],
  stored: ReadonlyMap<bigint, StoredPlant>,
  { refusalsFinal = false }: { refusalsFinal?: boolean } = {},
): Finding[] {
  const findings: Finding[] = [];
  const asked = new Map<bigint, Content[]>();
  for (const { content } of answers)
    asked.set(content.id, [...(asked.get(content.id) ?? []), content]);
  for (const answer of answers) {
    const { id } = answer.content;
    const plant = stored.get(id);
    const wanted = plantOf(answer.content);
    if (answer.status === 200) {
      if (plant === undefined)
        findings.push({ kind: 'lost', id, detail: 'answered 200, not in the store' });
      else if (!isDeepStrictEqual(answer.plant, plant) || !isDeepStrictEqual(wanted, plant)) {
        findings.push({
          kind: 'wrong answer',
          id,
          detail: `200 ${JSON.stringify(answer.plant)} for ${JSON.stringify(wanted)}, stored ${JSON.stringify(plant)}`,
        });
      }
    } else if (answer.error === 4009) {
      if (plant === undefined || isDeepStrictEqual(wanted, plant)) {
        findings.push({
          kind: 'wrong answer',
          id,
          detail: `4009 for ${JSON.stringify(wanted)}, stored ${JSON.stringify(plant ?? null)}`,
        });
      }
    } else if (!isOutage(answer)) {
      findings.push({
        kind: 'unexpected answer',
        id,
        detail: answer.failure ?? `${String(answer.status)}/${String(answer.error ?? '-')}`,
      });
    }
  }
  const refused = (answer: Answer) => refusalsFinal && answer.status === 503;
  const concludedIds = new Set(answers.filter(isConclusive).map(({ content }) => content.id));
  for (const answer of answers.filter(refused)) {
    const plant = stored.get(answer.content.id);
    if (plant !== undefined && !concludedIds.has(answer.content.id))
      findings.push({
        kind: 'refused yet stored',
        id: answer.content.id,
        detail: `503, stored ${JSON.stringify(plant)}`,
      });
  }
  for (const answer of unsettled(answers).filter((answer) => !refused(answer))) {
    findings.push({
      kind: 'unsettled',
      id: answer.content.id,
      detail: JSON.stringify(plantOf(answer.content)),
    });
  }
  for (const [id, plant] of stored) {
    if (!(asked.get(id) ?? []).some((content) => isDeepStrictEqual(plantOf(content), plant))) {
      findings.push({
        kind: 'phantom',
        id,
        detail: `stored ${JSON.stringify(plant)}, never asked for`,
      });
    }
  }
  return findings;
}

/** What a client may see while a server is down: 503/5030, 504/5040, or no answer at all. */
export function isOutage(answer: Answer): boolean {
  return (
    (answer.status === 503 && answer.error === 5030) ||
    (answer.status === 504 && answer.error === 5040) ||
    answer.failure !== undefined
  );
}

/** Load-phase outage answers whose content never got a conclusive answer afterwards. */
function unsettled(answers: readonly Answer[]): Answer[] {
  const concluded = new Set(answers.filter(isConclusive).map(({ content }) => key(content)));
  return answers.filter(
    (answer) => answer.phase === 'load' && isOutage(answer) && !concluded.has(key(answer.content)),
  );
}

function plantOf({ name, tag }: Content): StoredPlant {
  return tag === undefined ? { name } : { name, tag };
}

function key(content: Content): string {
  return JSON.stringify([content.id.toString(), content.name, content.tag ?? null]);
}
