import { randomBytes } from 'node:crypto';
import { v7, validate, version } from 'uuid';
import { newId, v7Text } from './ids';

describe('newId', () => {
  it('gives valid, unique UUIDv7s that strictly increase, across refills of its random pool', () => {
    // 10,000 ids: more than two refills, most of them within the same millisecond.
    const ids = Array.from({ length: 10_000 }, newId);
    for (const id of ids) {
      expect(validate(id)).toBe(true);
      expect(version(id)).toBe(7);
    }
    expect(new Set(ids).size).toBe(ids.length);
    const outOfOrder = ids.findIndex((id, i) => i > 0 && id <= ids[i - 1]);
    expect(outOfOrder).toBe(-1);
  });

  it('starts with the current millisecond', () => {
    const before = Date.now();
    const ms = parseInt(newId().replace(/-/g, '').slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(Date.now() + 1);
  });
});

describe('v7Text', () => {
  it("writes exactly what uuid's v7 writes for the same millisecond, sequence and random bytes", () => {
    for (let i = 0; i < 2_000; i++) {
      const random = randomBytes(16);
      const msecs = Math.floor(Math.random() * 2 ** 48);
      const sequence = randomBytes(4).readUInt32BE(0);
      expect(v7Text(msecs, sequence, random)).toBe(v7({ random, msecs, seq: sequence }));
    }
  });
});
