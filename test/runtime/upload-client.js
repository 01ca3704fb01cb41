/* eslint-disable */
// Sends one big request body with node:http in fixed-size writes, as many SDKs do, `tries` times
// in a row, and prints one JSON line per try: the status and body it got, or the socket error.
// It runs in its own process: a client sharing the server's event loop cannot race it.
//
// usage: node upload-client.js <url> <json options>
//   options: { tries, bytes, chunkBytes, chunked, headers, pauseMs, stopAfterBytes }
const http = require('node:http');

const [url, raw] = process.argv.slice(2);
const { tries = 1, bytes, chunkBytes = 64 * 1024, chunked = false, headers = {}, pauseMs = 0, stopAfterBytes } = JSON.parse(raw);

function once() {
  return new Promise((resolve) => {
    const started = Date.now();
    let written = 0;
    let settled = false;
    const settle = (result) => {
      if (settled) return;
      settled = true;
      resolve({ ...result, written, ms: Date.now() - started });
    };
    const request = http.request(url, {
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', ...(chunked ? {} : { 'content-length': bytes }), ...headers },
    });
    request.on('response', (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk) => (body += chunk));
      response.on('end', () => settle({ status: response.statusCode, body }));
      response.on('error', (error) => settle({ error: error.code || error.message }));
    });
    request.on('error', (error) => settle({ error: error.code || error.message }));
    const chunk = Buffer.alloc(chunkBytes, 'a');
    (async () => {
      const limit = stopAfterBytes ?? bytes;
      while (written < limit && !request.destroyed) {
        const size = Math.min(chunk.length, limit - written);
        await new Promise((done) => request.write(chunk.subarray(0, size), done));
        written += size;
        if (pauseMs) await new Promise((done) => setTimeout(done, pauseMs));
      }
      if (stopAfterBytes === undefined) request.end();
    })().catch(() => undefined);
  });
}

(async () => {
  for (let i = 0; i < tries; i++) process.stdout.write(`${JSON.stringify(await once())}\n`);
})();
