type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads the fields of one YAML object, collecting every problem (prefixed with where it is)
 * instead of stopping at the first, so that one start names them all. YAML's `key:` with no
 * value reads as null and counts as left out.
 */
export class SettingsReader {
  constructor(
    private readonly object: Json,
    private readonly where: string,
    private readonly problems: string[],
  ) {}

  problem(message: string): void {
    this.problems.push(`${this.where}${message}`);
  }

  /** Flags keys outside `allowed`; `hints` explain a few likely mistakes. */
  onlyKeys(allowed: readonly string[], hints: Record<string, string> = {}): void {
    for (const key of Object.keys(this.object)) {
      if (allowed.includes(key)) continue;
      this.problem(hints[key] ?? `${key} is not a known setting (known: ${allowed.join(', ')})`);
    }
  }

  has(key: string): boolean {
    return this.object[key] !== undefined && this.object[key] !== null;
  }

  string(key: string, fallback: string | null = null): string | null {
    if (!this.has(key)) return fallback;
    const value = this.object[key];
    if (typeof value === 'string' && value.length > 0) return value;
    this.problem(`${key} must be a non-empty string`);
    return fallback;
  }

  integer(key: string, fallback: number, min: number, max: number): number {
    if (!this.has(key)) return fallback;
    const value = this.object[key];
    if (Number.isInteger(value) && (value as number) >= min && (value as number) <= max) return value as number;
    this.problem(`${key} must be an integer from ${min} to ${max}`);
    return fallback;
  }

  number(key: string, min: number, max: number): number | null {
    if (!this.has(key)) return null;
    const value = this.object[key];
    if (typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max) return value;
    this.problem(`${key} must be a number from ${min} to ${max}`);
    return null;
  }

  boolean(key: string, fallback: boolean): boolean {
    if (!this.has(key)) return fallback;
    const value = this.object[key];
    if (typeof value === 'boolean') return value;
    this.problem(`${key} must be true or false`);
    return fallback;
  }

  /** A nested object's reader; an absent one reads as `{}`, a non-object is a problem. */
  nested(key: string): SettingsReader {
    const value = this.has(key) ? this.object[key] : {};
    if (!isObject(value)) {
      this.problem(`${key} must be a mapping`);
      return new SettingsReader({}, `${this.where}${key}.`, this.problems);
    }
    return new SettingsReader(value, `${this.where}${key}.`, this.problems);
  }
}
