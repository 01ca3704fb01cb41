import { dockerfileCommand, startNodeFlags } from '../support/start-command';

describe('how the server is started', () => {
  it('npm start runs node with single-threaded GC (measured on 2 cores: docs/benchmarks.md)', () => {
    expect(startNodeFlags()).toEqual(['--single-threaded-gc']);
  });

  it('the Docker image starts it with the same flags as npm start', () => {
    expect(dockerfileCommand()).toEqual(['node', ...startNodeFlags(), 'dist/main.js']);
  });
});
