import { redactedQuery, redactedUrl } from './redacted-url';

describe('redactedUrl', () => {
  it('redacts every value and any name longer than the API uses', () => {
    expect(redactedUrl('/v1/runtime?token=acme-key-0123456789abc')).toBe('/v1/runtime?token=[redacted]');
    expect(redactedUrl('/v1/events?after=3&limit=10')).toBe('/v1/events?after=[redacted]&limit=[redacted]');
    expect(redactedUrl('/v1/runtime?acme-key-0123456789abc')).toBe('/v1/runtime?[redacted]');
    expect(redactedUrl('/v1/runtime?')).toBe('/v1/runtime?');
    expect(redactedUrl('/v1/runtime')).toBe('/v1/runtime');
    expect(redactedQuery('a=1&&b')).toBe('a=[redacted]&&b');
  });
});
