import { setTimeout as sleep } from 'node:timers/promises';
import { Provider, ProviderFailure, ProviderManifest, ProviderOutcome, ProviderRun } from '../provider';
import { addUsage } from '../../executions/domain/execution-usage';
import { SCRIPTED_MANIFEST } from './scripted-manifest';
import { ScriptStep, ScriptedConfig, scriptedConfigProblem } from './scripted-config';
import { RunDelays } from './run-delays';

/** Splits after each space: "hello brave" gives "hello ", "brave". */
const echoSteps = (text: string): ScriptStep[] => text.split(/(?<= )/).map((chunk) => ({ type: 'text', text: chunk }));

/** The deterministic provider of docs/api.md#the-scripted-provider, for demos, tests and conformance checks. */
export class ScriptedProvider implements Provider {
  readonly manifest: ProviderManifest;
  readonly eventNamespace = 'scripted';

  /** The built-in `scripted`, or another instance of it named in PROVIDERS_CONFIG. */
  constructor(identity?: { id: string; displayName: string }) {
    this.manifest = identity ? { ...SCRIPTED_MANIFEST, ...identity } : SCRIPTED_MANIFEST;
  }

  validateConfig(config: Record<string, unknown>): Promise<string | null> {
    return scriptedConfigProblem(config);
  }

  async run(run: ProviderRun): Promise<ProviderOutcome> {
    const config = run.config as ScriptedConfig;
    const steps = config.script ?? echoSteps(run.input.text);
    const deltas: string[] = [];
    let usage = null as ProviderOutcome['usage'];
    const delays = new RunDelays(run.signal);
    try {
      for (const step of steps) {
        switch (step.type) {
          case 'text':
            deltas.push(step.text);
            await run.emitText(step.text);
            break;
          case 'delay':
            await delays.wait(step.ms);
            break;
          case 'action': {
            const response = await run.requireAction({
              kind: step.kind,
              prompt: step.prompt,
              inputSchema: step.inputSchema ?? null,
              tool: null,
              timeoutMs: step.timeoutMs,
            });
            if (step.kind === 'approval' && response.decision === 'deny') {
              throw new ProviderFailure('ACTION_DENIED', `approval denied: ${step.prompt}`);
            }
            break;
          }
          case 'artifact':
            await run.createArtifact({ name: step.name, mediaType: step.mediaType, uri: step.uri, metadata: step.metadata });
            break;
          case 'providerEvent':
            await run.emitEvent(step.name, step.payload ?? {});
            break;
          case 'fail':
            throw new ProviderFailure('PROVIDER_ERROR', step.message);
          case 'usage': {
            const spent = { inputTokens: step.inputTokens, outputTokens: step.outputTokens };
            usage = addUsage(usage, spent);
            await run.reportUsage(spent);
            break;
          }
        }
      }
    } finally {
      delays.close();
    }
    // No usage step: nothing reported, null (docs/api.md#the-scripted-provider).
    return { text: deltas.length > 0 ? deltas.join('') : null, usage };
  }

  async cleanup({ config }: { config: Record<string, unknown> }): Promise<void> {
    const { cleanup, cleanupDelayMs } = config as ScriptedConfig;
    if (cleanupDelayMs) await sleep(cleanupDelayMs);
    if (cleanup === 'fail') throw new Error('scripted cleanup failed');
  }
}
