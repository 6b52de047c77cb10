# syntax=docker/dockerfile:1
# Herald: one image for the API, the worker (APP_ROLE=worker), migrations and the CLI.
#   docker build -t herald .
#   docker run --rm -p 3000:3000 -e DATABASE_URL=… -e REDIS_URL=… -e APP_SECRET=… herald
# Node 24: an LTS line in support (Node 20 reached its end of life in April 2026).
ARG NODE_IMAGE=node:24-bookworm-slim

# 1. Every dependency, dev included, to build with.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ENV SCARF_ANALYTICS=false
COPY package.json package-lock.json ./
# The lock holds every platform's optional packages (scripts/complete-lock.js): plain npm ci.
RUN npm ci --no-audit --no-fund

# 2. Compile TypeScript to dist/ (src, migrations and ormconfig.ts).
FROM deps AS build
COPY tsconfig.json tsconfig.build.json nest-cli.json ormconfig.ts ./
COPY src ./src
COPY migrations ./migrations
COPY clients ./clients
RUN npm run build

# 3. Production dependencies only.
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
ENV SCARF_ANALYTICS=false
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# 4. The runtime: compiled code and production dependencies, run as the unprivileged `node` user.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    MEDIA_STORAGE_DIR=/var/lib/herald/media \
    NPM_CONFIG_UPDATE_NOTIFIER=false
WORKDIR /app
# The media directory exists and belongs to `node`, so a fresh named volume mounted there does too.
RUN mkdir -p /var/lib/herald/media && chown -R node:node /var/lib/herald
COPY --chown=node:node package.json package-lock.json ./
COPY --chown=node:node --from=prod-deps /app/node_modules ./node_modules
COPY --chown=node:node --from=build /app/dist ./dist
USER node
EXPOSE 3000
# The worker serves no HTTP: docker-compose.yml turns this check off for it.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# A young generation of at most 16 MB (Node 20's default): Node 22 and later size it by the memory
# they may use, and under load its larger collections held requests for 15–20 ms instead of 2–5.
# An old generation that may triple before a full collection (V8 grew it by a fifth to a half):
# under load each full collection stalled requests for 30–70 ms, and they came every few seconds.
CMD ["node", "--max-semi-space-size=16", "--heap-growing-percent=200", "dist/src/main.js"]
