/**
 * Process-exit hygiene for benchmarks: whatever registers here runs exactly once, synchronously,
 * on normal exit, on an uncaught error and on SIGINT/SIGTERM, so a child server is never orphaned
 * and temp files never pile up.
 */
const tasks: (() => void)[] = [];
let installed = false;
let ran = false;

function runAll(): void {
  if (ran) return;
  ran = true;
  for (const task of tasks.splice(0).reverse()) {
    try {
      task();
    } catch {
      // Best effort: one failing task must not keep the others from running.
    }
  }
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', runAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      process.stderr.write(`\n${signal} received: stopping the server and removing temp files\n`);
      runAll();
      process.exit(130);
    });
  }
  process.on('uncaughtException', (error) => {
    process.stderr.write(`bench failed: ${error.stack ?? error}\n`);
    runAll();
    process.exit(1);
  });
  process.on('unhandledRejection', (error) => {
    process.stderr.write(`bench failed: ${(error as Error)?.stack ?? String(error)}\n`);
    runAll();
    process.exit(1);
  });
}

/** Registers a synchronous cleanup; the returned function runs it early and deregisters it. */
export function onExit(task: () => void): () => void {
  install();
  tasks.push(task);
  return () => {
    const i = tasks.indexOf(task);
    if (i >= 0) tasks.splice(i, 1);
    task();
  };
}
