// Preloaded with `node --require`: when the process exits, writes the paths of every
// @opentelemetry module it loaded to the file named by LOADED_MODULES_FILE (a JSON array).
const { writeFileSync } = require('node:fs');
const { sep } = require('node:path');

process.on('exit', () => {
  const loaded = Object.keys(require.cache).filter((path) => path.includes(`${sep}@opentelemetry${sep}`));
  writeFileSync(process.env.LOADED_MODULES_FILE, JSON.stringify(loaded));
});
