import { describe, expect, it } from 'vitest';
import type { Answer, Content } from '#chaos/observe/traffic.ts';
import { verdict, type StoredPlant } from '#chaos/report/verdict.ts';

const fern: Content = { id: 1n, name: 'Fern', tag: 'green' };
const other: Content = { id: 1n, name: 'Other' };

function answer(content: Content, details: Partial<Answer>): Answer {
  const url = 'http://127.0.0.1:3000';
  return {
    content,
    gateway: 0,
    url,
    phase: 'load',
    startedAt: 0,
    endedAt: 1,
    status: 200,
    ...details,
  };
}

const ok = (content: Content) =>
  answer(content, {
    plant: { name: content.name, ...(content.tag === undefined ? {} : { tag: content.tag }) },
  });
const stored = (entries: [bigint, StoredPlant][]) => new Map(entries);

describe('Chaos verdict', () => {
  it('When every answer agrees with the store, then nothing is found', () => {
    const answers = [
      ok(fern),
      answer(other, { status: 400, error: 4009 }),
      answer(fern, { status: 504, error: 5040 }),
      answer(fern, { phase: 'settle', plant: { name: 'Fern', tag: 'green' } }),
    ];
    expect(verdict(answers, stored([[1n, { name: 'Fern', tag: 'green' }]]))).toEqual([]);
  });

  it('When a 200 is missing from the store, then it is lost', () => {
    expect(verdict([ok(fern)], stored([]))).toEqual([
      { kind: 'lost', id: 1n, detail: 'answered 200, not in the store' },
    ]);
  });

  it('When a 200 body differs from the stored plant, or a 4009 is for the stored content, then they are wrong answers', () => {
    const findings = verdict(
      [answer(fern, { plant: { name: 'Fern' } }), answer(fern, { status: 400, error: 4009 })],
      stored([[1n, { name: 'Fern', tag: 'green' }]]),
    );
    expect(findings.map(({ kind }) => kind)).toEqual(['wrong answer', 'wrong answer']);
  });

  it('When a 200 answers content other than what was asked, then it is a wrong answer (and the stored content a phantom)', () => {
    const findings = verdict(
      [answer(other, { plant: { name: 'Fern', tag: 'green' } })],
      stored([[1n, { name: 'Fern', tag: 'green' }]]),
    );
    expect(findings.map(({ kind }) => kind)).toEqual(['wrong answer', 'phantom']);
  });

  it('When a request got 500 or a 4000, then it is unexpected; when a 504 never settles, then it is unsettled', () => {
    const findings = verdict(
      [
        answer(fern, { status: 500, error: 5000 }),
        answer(fern, { status: 400, error: 4000 }),
        answer(fern, { status: 504, error: 5040 }),
        answer(fern, { phase: 'settle', status: 503, error: 5030 }),
      ],
      stored([]),
    );
    expect(findings.map(({ kind, detail }) => [kind, detail])).toEqual([
      ['unexpected answer', '500/5000'],
      ['unexpected answer', '400/4000'],
      ['unsettled', '{"name":"Fern","tag":"green"}'],
    ]);
  });

  it('When the store holds content nobody asked for, then it is a phantom', () => {
    expect(
      verdict(
        [ok(fern)],
        stored([
          [1n, { name: 'Fern', tag: 'green' }],
          [2n, { name: 'Ghost' }],
        ]),
      ),
    ).toEqual([{ kind: 'phantom', id: 2n, detail: 'stored {"name":"Ghost"}, never asked for' }]);
  });

  it('When refusals are final, then a 503 need not settle, but a refused create found in the store is reported', () => {
    const moss: Content = { id: 2n, name: 'Moss' };
    const refused = { status: 503, error: 5030, retryAfter: '1' };

    const findings = verdict(
      [answer(fern, refused), answer(moss, refused)],
      stored([[2n, { name: 'Moss' }]]),
      { refusalsFinal: true },
    );

    expect(findings).toEqual([
      { kind: 'refused yet stored', id: 2n, detail: '503, stored {"name":"Moss"}' },
    ]);
  });
});
