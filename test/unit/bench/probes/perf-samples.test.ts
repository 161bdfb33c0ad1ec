import { describe, expect, it } from 'vitest';
import { classify, parsePerfScript, splitPerfProfile } from '#bench/probes/perf-samples.ts';

const js = (name: string, url: string) => ({
  symbol: `JS:*'${name} ${url}:10:5`,
  dso: '/tmp/perf-1.map',
});
const native = (symbol: string) => ({ symbol, dso: '/app/node_modules/node/bin/node' });
const kernel = (symbol: string) => ({ symbol, dso: '[kernel.kallsyms]' });

describe('classify', () => {
  it('When JavaScript of the project ran, then the sample is the project file', () => {
    expect(
      classify([
        native('Builtins_ArrayMap'),
        js('parse', 'file:///w/shared/contracts/json.ts'),
        js('parserOnIncoming', 'node:_http_server'),
      ]),
    ).toEqual({
      group: 'project',
      caller: 'shared/contracts/json.ts',
      area: 'shared/contracts/json.ts',
      function: 'parse shared/contracts/json.ts:10',
    });
  });

  it("When a socket write ran in the kernel under Node's binding, then it is native, charged to the caller up the stack", () => {
    expect(
      classify([
        kernel('tcp_sendmsg'),
        kernel('entry_SYSCALL_64'),
        native('uv_try_write'),
        native('node::StreamBase::WriteBuffer'),
        js('writeGeneric', 'node:internal/stream_base_commons'),
        js('sendRequest', '/app/node_modules/kafkajs/src/network/connection.js'),
        js('publish', 'file:///w/services/gateway/src/publisher.ts'),
      ]),
    ).toEqual({
      group: 'native',
      caller: 'services/gateway/src/publisher.ts',
      area: '(native)',
      function: 'node::StreamBase::WriteBuffer (native)',
    });
  });

  it('When a package ran under Fastify, then the group is the package and the caller Fastify', () => {
    expect(
      classify([
        js('encode', '/app/node_modules/kafkajs/src/protocol/encoder.js'),
        js('preHandlerCallback', '/app/node_modules/fastify/lib/handle-request.js'),
        js('handler', 'file:///w/services/gateway/src/routes.ts'),
      ]),
    ).toMatchObject({ group: 'kafkajs', caller: 'fastify & Node HTTP', area: 'kafkajs' });
  });

  it('When V8 collected garbage on the thread, then it is GC whatever JavaScript allocated', () => {
    expect(
      classify([
        native('v8::internal::ScavengerCollector::CollectGarbage'),
        native('v8::internal::Heap::CollectGarbage'),
        js('alloc', 'node:buffer'),
        js('publish', 'file:///w/services/gateway/src/publisher.ts'),
      ]),
    ).toMatchObject({ group: 'GC', caller: '(no project frame)', area: '(garbage collector)' });
  });

  it('When no JavaScript frame is on the stack, then it is V8 unattributed', () => {
    expect(classify([kernel('tcp_recvmsg'), native('uv__read'), native('uv_run')])).toEqual({
      group: 'V8 unattributed',
      caller: '(no project frame)',
      area: '(program)',
      function: 'uv__read (program)',
    });
  });
});

const script = `
 100/100    10.000100: 
	    7f00 JS:*'publish file:///w/services/gateway/src/publisher.ts:3:1 (/tmp/perf-100.map)
	    1600 Builtins_JSEntry (/app/node_modules/node/bin/node)

 100/101    10.000200: 
	    a000 v8::internal::ConcurrentMarking::Run (/app/node_modules/node/bin/node)

 100/100    10.000300: 
	    ffff tcp_recvmsg ([kernel.kallsyms])
	    a100 uv__read (/app/node_modules/node/bin/node)

 200/200    10.000400: 
	    7f01 JS:~send /app/node_modules/kafkajs/src/producer/index.js:5:2 (/tmp/perf-200.map)

 300/300    10.000500: 
	    7f02 JS:*'other file:///x/y.js:1:1 (/tmp/perf-300.map)

 100/100    12.5: 
	    7f00 JS:*'publish file:///w/services/gateway/src/publisher.ts:3:1 (/tmp/perf-100.map)
`;

describe('parsePerfScript and splitPerfProfile', () => {
  it("When perf sampled several threads and processes, then each named process's main thread is split within the window", async () => {
    const profile = await parsePerfScript(
      script.split('\n'),
      new Map([
        [100, 'gateway'],
        [200, 'writer-1'],
      ]),
      'perf.data',
    );

    const split = splitPerfProfile(profile, { fromUs: 10_000_000, toUs: 11_000_000 }, 500);

    expect(split).toEqual([
      {
        process: 'gateway',
        busySamples: 2,
        busyUs: 4000,
        byGroup: [
          { name: 'project', percent: 50 },
          { name: 'V8 unattributed', percent: 50 },
        ],
        byCaller: [
          { name: 'services/gateway/src/publisher.ts', percent: 50 },
          { name: '(no project frame)', percent: 50 },
        ],
      },
      {
        process: 'writer-1',
        busySamples: 1,
        busyUs: 2000,
        byGroup: [{ name: 'kafkajs', percent: 100 }],
        byCaller: [{ name: '(no project frame)', percent: 100 }],
      },
    ]);
  });

  it('When a sample falls after the window, then it is left out', async () => {
    const profile = await parsePerfScript(
      script.split('\n'),
      new Map([[100, 'gateway']]),
      'perf.data',
    );

    expect(
      splitPerfProfile(profile, { fromUs: 12_000_000, toUs: 13_000_000 }, 500)[0],
    ).toMatchObject({
      busySamples: 1,
      byGroup: [{ name: 'project', percent: 100 }],
    });
  });
});

describe('parsePerfScript', () => {
  it("When a recording is read, then each process's whole recording is summed up by area and function, as V8's profiles are", async () => {
    const profile = await parsePerfScript(
      script.split('\n'),
      new Map([[100, 'gateway']]),
      'perf.data',
    );

    expect(profile.summaries).toEqual([
      {
        process: 'gateway',
        file: 'perf.data',
        busySamples: 3,
        byArea: [
          { name: 'services/gateway/src/publisher.ts', percent: 66.7 },
          { name: '(program)', percent: 33.3 },
        ],
        byFunction: [
          { name: 'publish services/gateway/src/publisher.ts:3', percent: 66.7 },
          { name: 'uv__read (program)', percent: 33.3 },
        ],
      },
    ]);
  });
});
