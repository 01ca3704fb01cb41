import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const PROTOCOL_VERSION = '2026-09-02';
export const RUNTIME_NAME = 'runledger';
// Read from package.json so the version reported is always the one shipped (dist/ sits beside it).
export const RUNTIME_VERSION: string = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')).version;
