import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

/**
 * Runs `body` under V8's sampling profiler in this process and writes a .cpuprofile into `dir`
 * (read it with cpu-profile.ts's summarizeProfile). `dir` undefined: just runs `body`.
 */
export async function profiled<T>(dir: string | undefined, label: string, body: () => Promise<T>): Promise<T> {
  if (!dir) return body();
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<any>((ok, fail) => session.post(method, params ?? {}, (error, result) => (error ? fail(error) : ok(result))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 500 });
  await post('Profiler.start');
  try {
    return await body();
  } finally {
    const { profile } = await post('Profiler.stop');
    writeFileSync(join(dir, `${Date.now()}-${label}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}
