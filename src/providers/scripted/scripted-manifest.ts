import { ProviderManifest } from '../provider';

/** Exactly the manifest in docs/api.md#the-scripted-provider. */
export const SCRIPTED_MANIFEST: ProviderManifest = {
  id: 'scripted',
  displayName: 'Scripted (deterministic)',
  capabilities: {
    'output.text.stream': 'native',
    'actions.approval': 'native',
    'actions.input': 'native',
    artifacts: 'native',
    cancellation: 'native',
    'conversation.history': 'native',
    tools: 'emulated',
    'output.structured': 'degraded',
    'input.image': 'unsupported',
  },
};
