# syntax=docker/dockerfile:1

# Build: compiles TypeScript and better-sqlite3's native addon (built from source when no
# prebuilt binary matches, hence python3/make/g++), then drops dev dependencies.
FROM node:20-bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

# Runtime: no compilers; the native addon was built above for this same base image.
# HOST=0.0.0.0 makes the server reachable, so it starts only with keys: API_KEYS, or
# API_KEYS_FILE naming a mounted secret (e.g. /run/secrets/api_keys), or OIDC_ISSUER.
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    SQLITE_PATH=/data/runledger.db
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The SQLite store (the default) keeps its file on a volume the unprivileged user can write.
RUN mkdir -p /data && chown node:node /data
VOLUME /data
USER node
EXPOSE 3000
# node itself is PID 1 and handles SIGTERM (src/main.ts), so `docker stop` shuts down cleanly.
# The flags are npm start's (docs/operations.md, "Node's flags").
CMD ["node", "--single-threaded-gc", "dist/main.js"]
