import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { readInstance } from './instance-settings';
import { ProviderSettings } from './provider-settings';
import { isObject, SettingsReader } from './settings-reader';

type Env = Record<string, string | undefined>;

const BUILT_IN_ID = 'scripted';

export interface ProvidersConfig {
  /** PROVIDERS_CONFIG as given, or null when unset (then only the built-in `scripted` exists). */
  providersConfigPath: string | null;
  providers: ProviderSettings[];
}

/**
 * Reads and validates the YAML (or JSON, which is YAML) file named by PROVIDERS_CONFIG, adding
 * every problem to `problems` so that loadConfig reports them with the rest in one message.
 */
export function readProvidersConfig(env: Env, problems: string[]): ProvidersConfig {
  const path = env.PROVIDERS_CONFIG || null;
  if (!path) return { providersConfigPath: path, providers: [] };
  const where = `PROVIDERS_CONFIG (${path})`;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    problems.push(`${where} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    return { providersConfigPath: path, providers: [] };
  }
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    // First line only: the parser's later lines quote the file, which might hold a secret.
    problems.push(`${where} is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
    return { providersConfigPath: path, providers: [] };
  }
  if (!isObject(document) || !Array.isArray(document.providers)) {
    problems.push(`${where} must be a mapping with a "providers" list`);
    return { providersConfigPath: path, providers: [] };
  }
  new SettingsReader(document, `${where}: `, problems).onlyKeys(['providers']);
  const providers: ProviderSettings[] = [];
  const seen = new Set<string>();
  document.providers.forEach((entry: unknown, index: number) => {
    const label = isObject(entry) && typeof entry.id === 'string' && entry.id ? ` (${entry.id})` : '';
    const at = `${where} providers[${index}]${label}: `;
    if (!isObject(entry)) {
      problems.push(`${at}must be a mapping`);
      return;
    }
    const reader = new SettingsReader(entry, at, problems);
    const settings = readInstance(reader, env);
    if (!settings) return;
    if (settings.id === BUILT_IN_ID) reader.problem(`id "${BUILT_IN_ID}" is the built-in provider's; choose another id`);
    else if (seen.has(settings.id)) reader.problem(`id "${settings.id}" is used by an earlier provider`);
    else providers.push(settings);
    seen.add(settings.id);
  });
  return { providersConfigPath: path, providers };
}
