import { fork } from 'node:child_process';
import autocannon from 'autocannon';
import { benchKeys, openBenchStore } from './gen-large-org.js';
const store = await openBenchStore(2);
const keys = await benchKeys(store.db);
await store.close();
async function serve(kind: string) {
  const proc = fork(new URL('./lists.ts', import.meta.url).pathname, ['--serve', kind], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  const url: string = await new Promise((r) => proc.on('message', (m: any) => m.ready && r(m.ready)));
  return { url, stop: () => new Promise<void>((res) => { proc.once('exit', () => res()); proc.send('stop'); }) };
}
const real = await serve('real'); const floor = await serve('floor');
const h = { authorization: `Bearer ${keys.gated}` };
const run = (url: string, d: number) => autocannon({ url, connections: 32, duration: d, headers: h });
await run(real.url + '/api/agent/invoices?limit=200', 3); await run(floor.url + '/?limit=200&gate=true', 3);
for (let i = 0; i < 3; i++) {
  const r = await run(real.url + '/api/agent/invoices?limit=200', 10);
  const f = await run(floor.url + '/?limit=200&gate=true', 10);
  console.log(`real ${r.requests.average.toFixed(0)} rps (${(r.throughput.average / r.requests.average / 1024).toFixed(0)} KiB/resp) floor ${f.requests.average.toFixed(0)} rps (${(f.throughput.average / f.requests.average / 1024).toFixed(0)} KiB/resp) ratio ${(r.requests.average / f.requests.average).toFixed(2)}`);
}
await real.stop(); await floor.stop();
