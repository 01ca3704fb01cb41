import { v7 } from 'uuid';

/** UUIDv7, so that ids sort by creation time (docs/api.md#conventions). */
export const newId = (): string => v7();
