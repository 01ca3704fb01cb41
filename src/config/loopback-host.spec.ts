import { isLoopbackHost } from './loopback-host';

describe('isLoopbackHost', () => {
  it.each(['127.0.0.1', '127.8.9.1', '::1', '[::1]', '0:0:0:0:0:0:0:1', 'localhost', 'LOCALHOST', '::ffff:127.0.0.1'])('%s is loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });

  it.each(['0.0.0.0', '::', '10.0.0.1', '128.0.0.1', 'example.com', 'localhost.example.com', ''])('%s is not', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});
