import { newId } from './ids';

/**
 * This process's identity among the instances sharing one event store: `INSTANCE_ID` when the
 * deployment names it (stable across restarts is not needed), else a fresh UUIDv7. Recorded on
 * every event it appends (`metadata.instanceId`); the instance that queued and started an
 * execution owns it.
 */
export const INSTANCE_ID: string = process.env.INSTANCE_ID || newId();
