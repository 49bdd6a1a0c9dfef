# Sign in with ChatGPT, as one long-lived production server (`next start`), with agent voice ready:
# the pinned codex executable and bubblewrap, its sandbox. docs/deploy.md, "In a container", says
# how to build and run it, and which `docker run` flags the sandbox needs.
#
#   docker build -t login-with-chatgpt .
#   docker build --build-arg LWC_BASE_PATH=/chat-app -t login-with-chatgpt .   (the app under a path)
#   docker build --build-arg LWC_API_BASE_PATH=/api/chatgpt -t login-with-chatgpt .   (only the API)

ARG NODE_IMAGE=node:24-bookworm-slim

# 1. Dependencies, dev ones included (the build type-checks and compiles with them).
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund

# 2. The production build, then only the production dependencies.
FROM deps AS build
ARG LWC_BASE_PATH=
# Build time only: next build inlines it and writes its rewrite (lib/shared/base-path.ts).
ARG LWC_API_BASE_PATH=
ENV NEXT_TELEMETRY_DISABLED=1 LWC_BASE_PATH=${LWC_BASE_PATH} LWC_API_BASE_PATH=${LWC_API_BASE_PATH}
COPY . .
# After the build: only production dependencies (next names the dev dependency @playwright/test as an
# optional peer, and drizzle-orm the dev dependency @types/pg, so npm's prune keeps them and what they
# pull in: removed by hand), no build cache, no
# source maps (Node reads them only under --enable-source-maps, which next start does not pass) and
# none of lib's test files (the image copies lib for next.config.ts).
RUN npm run build \
  && npm prune --omit=dev --no-audit --no-fund \
  && rm -rf node_modules/@playwright node_modules/playwright node_modules/playwright-core .next/cache \
     node_modules/@types/pg node_modules/@types/node node_modules/undici-types \
  && find node_modules .next -name '*.map' -delete \
  && find lib -name '*.test.ts' -delete

# 3. The codex executable agent voice runs, at the version the app sends (lib/upstream/client-version.json).
FROM ${NODE_IMAGE} AS codex
WORKDIR /src
COPY scripts/ensure-codex.sh scripts/
COPY lib/upstream/client-version.json lib/upstream/
RUN LWC_CODEX_CACHE_DIR=/opt/codex bash scripts/ensure-codex.sh

# 4. What runs: node, the build, bubblewrap, codex, and tini as PID 1.
FROM ${NODE_IMAGE} AS runtime
# tini forwards SIGTERM/SIGINT to the server's whole process group (-g) and reaps every exited
# process; the server then ends each codex process itself (lib/server/http/shutdown.ts).
RUN apt-get update \
  && apt-get install -y --no-install-recommends bubblewrap tini ca-certificates \
  && apt-get clean \
  && rm -rf /var/lib/apt/lists/*
ARG LWC_BASE_PATH=
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1 \
    PORT=3000 \
    LWC_BASE_PATH=${LWC_BASE_PATH} \
    LWC_CODEX_COMMAND=/opt/codex/node_modules/.bin/codex
WORKDIR /app
COPY --from=codex /opt/codex /opt/codex
# next start reads package.json, next.config.ts (and the lib files it imports) and tsconfig.json.
COPY --from=build /app/package.json /app/package-lock.json /app/next.config.ts /app/tsconfig.json ./
COPY --from=build /app/lib ./lib
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/.next ./.next
# The app's files stay root's and read-only; the server may write only its cache, the embedded chat
# history's folder (LWC_DATA_DIR, default /app/.data: mount a volume there to keep it) and /tmp,
# where each codex process gets its private home.
RUN mkdir -p .next/cache .data && chown node:node .next/cache .data
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s \
  CMD node -e "fetch('http://127.0.0.1:3000' + (process.env.LWC_BASE_PATH || '') + '/api/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
ENTRYPOINT ["/usr/bin/tini", "-g", "--"]
CMD ["node", "node_modules/next/dist/bin/next", "start", "-H", "0.0.0.0", "-p", "3000"]
