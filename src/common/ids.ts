import { v7 } from 'uuid';

/** UUIDv7, so that ids sort by creation time (binding §1). */
export const newId = (): string => v7();
