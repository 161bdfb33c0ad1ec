import { setTimeout as sleep } from 'node:timers/promises';

/** What one request asked to create. */
export interface Content {
  id: bigint;
  name: string;
  tag?: string;
}

export interface Answer {
  content: Content;
  /** The gateway's index in the rotation when the request was sent, and its URL. */
  gateway: number;
  url: string;
  phase: 'load' | 'settle';
  startedAt: number;
  endedAt: number;
  /** HTTP status, or 0 when there was no HTTP answer (`failure` says why). */
  status: number;
  /** The Error body's `error`. */
  error?: number;
  /** The 200 body, as received. */
  plant?: Record<string, unknown>;
  /** The Retry-After header of a 503 (kept by the overload scenario, whose targets read it). */
  retryAfter?: string;
  failure?: string;
}

export interface TrafficOptions {
  urls: readonly string[];
  token: string;
  connections: number;
  firstId: bigint;
  /** A request without an answer after this long is recorded as a hang. */
  hangAfterMs: number;
}

export interface Traffic {
  readonly answers: Answer[];
  /** Stops issuing requests and resolves once every one in flight is answered. */
  stop(): Promise<void>;
}

/**
 * Keeps `connections` clients creating plants: mostly fresh ids, and among them repeats of an
 * earlier request's content (must answer 200 again) and conflicting content for an earlier id
 * (must answer 4009, unless it won the race). Every answer is recorded for the verdict.
 */
export function startTraffic(options: TrafficOptions): Traffic {
  const answers: Answer[] = [];
  const sent: Content[] = [];
  let nextId = options.firstId;
  let running = true;
  const nextContent = (): Content => {
    const roll = Math.random();
    const earlier = sent[Math.floor(Math.random() * sent.length)];
    if (earlier !== undefined && roll < 0.1) return earlier;
    if (earlier !== undefined && roll < 0.16) {
      return { id: earlier.id, name: `conflict-${Math.random().toString(36).slice(2, 8)}` };
    }
    const id = nextId++;
    const content: Content =
      id % 2n === 0n
        ? { id, name: `plant-${id}` }
        : { id, name: `plant-${id}`, tag: `t${id % 7n}` };
    sent.push(content);
    return content;
  };
  const client = async (index: number) => {
    for (let request = index; running; request++) {
      const gateway = request % options.urls.length;
      answers.push(await create(options, gateway, nextContent(), 'load'));
    }
  };
  const clients = Array.from({ length: options.connections }, (_, index) => client(index));
  return {
    answers,
    async stop() {
      running = false;
      await Promise.all(clients);
    },
  };
}

/**
 * Repeats each request that got 503, 504 or no answer, identically, until it gets 200 or 4009 or
 * `attempts` run out; returns every retry's answer.
 */
export async function settle(
  options: TrafficOptions,
  unsettled: readonly Answer[],
  attempts = 20,
): Promise<Answer[]> {
  const retries: Answer[] = [];
  await Promise.all(
    unsettled.map(async ({ content, gateway }) => {
      for (let attempt = 0; attempt < attempts; attempt++) {
        // The rotation may have shrunk since: any gateway answers for any id.
        const answer = await create(options, gateway % options.urls.length, content, 'settle');
        retries.push(answer);
        if (isConclusive(answer)) return;
        await sleep(1_000);
      }
    }),
  );
  return retries;
}

/** 200 or 4009: the store's word on this content. */
export function isConclusive(answer: Answer): boolean {
  return answer.status === 200 || answer.error === 4009;
}

export function bodyOf(content: Content): string {
  const tag = content.tag === undefined ? '' : `, "tag": ${JSON.stringify(content.tag)}`;
  return `{"id": ${content.id.toString()}, "name": ${JSON.stringify(content.name)}${tag}}`;
}

async function create(
  options: TrafficOptions,
  gateway: number,
  content: Content,
  phase: Answer['phase'],
): Promise<Answer> {
  const startedAt = Date.now();
  const url = options.urls[gateway] ?? '';
  const answered = (details: Partial<Answer> & { status: number }): Answer => ({
    content,
    gateway,
    url,
    phase,
    startedAt,
    endedAt: Date.now(),
    ...details,
  });
  try {
    const response = await fetch(`${url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' },
      body: bodyOf(content),
      signal: AbortSignal.timeout(options.hangAfterMs),
    });
    const body = (await response.json()) as Record<string, unknown>;
    if (response.status === 200) return answered({ status: 200, plant: body });
    return answered({
      status: response.status,
      ...(typeof body.error === 'number' ? { error: body.error } : {}),
    });
  } catch (error) {
    const failure =
      error instanceof Error
        ? error.cause instanceof Error
          ? error.cause.message
          : error.name
        : String(error);
    return answered({ status: 0, failure });
  }
}
