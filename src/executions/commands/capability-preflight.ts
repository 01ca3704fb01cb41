import { ApiError } from '../../common/api-error';
import { ProviderManifest } from '../../providers/provider';

const USABLE = new Set(['native', 'emulated', 'degraded']);

/** §10: every required capability must be advertised at a usable level, before anything is appended. */
export function preflight(manifest: ProviderManifest, required: string[]): void {
  const offending = required
    .map((name) => ({ name, level: manifest.capabilities[name] ?? 'absent' }))
    .filter(({ level }) => !USABLE.has(level));
  if (offending.length > 0) {
    throw new ApiError(
      'CAPABILITY_UNSUPPORTED',
      `provider ${manifest.id} does not support: ${offending.map((o) => `${o.name} (${o.level})`).join(', ')}`,
      { capabilities: offending },
    );
  }
}
