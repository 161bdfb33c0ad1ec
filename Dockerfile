# One image for both services; the command selects which (see docker-compose.yml).
FROM node:24.21.0-bookworm-slim AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only, exactly as locked; none of them needs an install script.
RUN npm ci --omit=dev --ignore-scripts

FROM node:24.21.0-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    NODE_OPTIONS="--disable-warning=TimeoutNegativeWarning --max-semi-space-size=16 --max-old-space-size=256"
WORKDIR /app
COPY --from=dependencies /app/node_modules ./node_modules
COPY package.json ./
COPY shared ./shared
COPY services ./services
USER node
EXPOSE 3000
# Node 24 runs the TypeScript sources directly (type stripping); there is no build step.
CMD ["node", "services/gateway/src/main.ts"]
