/** The one place the application reads the wall clock; the domain receives times as values. */
export const nowIso = (): string => new Date().toISOString();
