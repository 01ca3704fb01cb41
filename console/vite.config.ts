import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The console is served by the app under /console/ from console/dist (src/http/console-static.ts);
// it calls the API through the TypeScript SDK's sources, so it speaks exactly what the SDK speaks.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  logLevel: 'warn',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  resolve: { alias: { '@runledger/client': fileURLToPath(new URL('../clients/typescript/src/index.ts', import.meta.url)) } },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', sourcemap: false },
});
