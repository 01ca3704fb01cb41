/**
 * Samples GET /health/live every `everyMs` while an attack runs, and reports the slowest answer:
 * a stalled event loop shows here, whatever the attacked request itself answers.
 */
export function sampleLiveness(baseUrl: string, everyMs = 20): { stop(): Promise<{ worstMs: number; samples: number }> } {
  let running = true;
  let worstMs = 0;
  let samples = 0;
  const loop = (async () => {
    while (running) {
      const began = performance.now();
      const res = await fetch(`${baseUrl}/health/live`);
      await res.arrayBuffer();
      worstMs = Math.max(worstMs, performance.now() - began);
      samples++;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { worstMs, samples };
    },
  };
}
