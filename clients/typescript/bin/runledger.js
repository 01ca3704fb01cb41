#!/usr/bin/env node
// The `runledger` command. It lives outside dist/ so that npm links it at install time, before
// `npm run build` has compiled the CLI it starts (dist/cli/main.js).
const { main } = require('../dist/cli/main.js');

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
