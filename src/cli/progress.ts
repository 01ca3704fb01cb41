import { SingleBar } from 'cli-progress';

export interface Progress {
  update(value: number): void;
  stop(): void;
}

/**
 * A progress bar on stderr (stdout stays for output): events, events/s and time left. Where
 * stderr is not a terminal it prints a plain line every few seconds instead of redrawing.
 */
export function progressBar(label: string, total: number): Progress {
  const started = performance.now();
  const bar = new SingleBar({
    format: `${label} [{bar}] {percentage}% | {value}/{total} events | {rate} events/s | {eta_formatted} left`,
    stream: process.stderr,
    noTTYOutput: true,
    notTTYSchedule: 5000,
    etaBuffer: 50,
    formatValue: (value, _options, type) => (type === 'value' || type === 'total' ? value.toLocaleString('en-US') : String(value)),
  });
  bar.start(total, 0, { rate: '0' });
  return {
    update(value) {
      const seconds = (performance.now() - started) / 1000;
      bar.update(value, { rate: seconds > 0 ? Math.round(value / seconds).toLocaleString('en-US') : '0' });
    },
    stop() {
      bar.stop();
    },
  };
}
