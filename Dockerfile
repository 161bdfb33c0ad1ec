# One image for both services; the command selects which:
#   node services/gateway/src/main.ts   (the default)
#   node services/writer/src/main.ts
# NODE_OPTIONS: scripts/node-options.json, the same options the npm scripts give the services.
# Node 24 runs the TypeScript sources directly (type stripping), so there is no compile step: the
# first stage only installs the production dependencies, the second copies them beside the sources.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

FROM ${NODE_IMAGE} AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
# Exactly as locked, without devDependencies; none of the production dependencies needs an
# install script, so none runs.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    NODE_OPTIONS="--disable-warning=TimeoutNegativeWarning --max-semi-space-size=16 --max-old-space-size=256"
WORKDIR /app
# Owned by root and read-only to the user the services run as: they cannot change their own code.
COPY --from=dependencies /app/node_modules ./node_modules
COPY package.json ./
COPY shared ./shared
COPY services ./services
# A user and group of no name, by number (Kubernetes' runAsNonRoot can only verify a numeric user),
# above 10000 so that they are no user of the host's: not the image's `node` (1000).
USER 10001:10001
# 3000: the gateway's HTTP port (PORT); 9464: the writer's /metrics, /healthz, /readyz (METRICS_PORT).
EXPOSE 3000 9464
CMD ["node", "services/gateway/src/main.ts"]
