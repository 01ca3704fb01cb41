/** Whether the `Accept` header lists `text/event-stream` among its media types. */
export const wantsEventStream = (accept: string | undefined): boolean =>
  (accept ?? '').split(',').some((type) => type.split(';')[0].trim().toLowerCase() === 'text/event-stream');
