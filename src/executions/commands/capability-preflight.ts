import { CapabilityUnsupportedError } from '../../common/errors/request-errors';
import { ProviderManifest } from '../../providers/provider';

const USABLE = new Set(['native', 'emulated', 'degraded']);

/** Whether a provider offers a capability at a level a caller may rely on. */
export const offers = (manifest: ProviderManifest, capability: string): boolean => USABLE.has(manifest.capabilities[capability] ?? 'absent');

/** docs/api.md#capability-preflight: every required capability must be advertised at a usable level, before anything is appended. */
export function preflight(manifest: ProviderManifest, required: string[]): void {
  const offending = required.map((name) => ({ name, level: manifest.capabilities[name] ?? 'absent' })).filter(({ name }) => !offers(manifest, name));
  if (offending.length > 0) {
    throw new CapabilityUnsupportedError(`provider ${manifest.id} does not support: ${offending.map((o) => `${o.name} (${o.level})`).join(', ')}`, {
      capabilities: offending,
    });
  }
}
