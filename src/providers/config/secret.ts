import { inspect } from 'node:util';

const REDACTED = '[redacted]';

/**
 * An API key read from the environment. It prints as `[redacted]` however it is printed (string
 * interpolation, JSON, util.inspect, a logged Config), so a credential cannot leak by accident
 * into an event, a log line or an error body (rule 8); only `reveal()` hands it to an SDK.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  /** Replaces every occurrence of the secret in `text`: the last guard on messages we build. */
  redact(text: string): string {
    return this.#value ? text.split(this.#value).join(REDACTED) : text;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}
