# syntax=docker/dockerfile:1
# Mediahost in a container (docs/container.md): the production build served by `npm start`,
# exactly as the README runs it, as the unprivileged `node` user, with Debian's ffmpeg.
# Configure it with the README's environment variables; state lives in DATA_DIR (/data).
#
#   docker build -t mediahost .
#   docker run --init -p 3000:3000 -v mediahost-data:/data mediahost

ARG NODE_IMAGE=node:22-bookworm-slim

# ---- build: every dependency, the generated database clients, the Next build ----------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
# better-sqlite3 compiles from source where no prebuilt binary fits.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY scripts/prisma-generate.mjs scripts/
COPY prisma prisma
# `npm install`, not `npm ci`: see the README.
RUN npm install --no-audit --no-fund
COPY . .
RUN NEXT_TELEMETRY_DISABLED=1 npm run build

# ---- runtime dependencies only ----------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime-deps
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# Without scripts: the project's postinstall generates clients the build stage already made.
# The native packages then run their own install steps.
RUN npm install --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm rebuild better-sqlite3 esbuild sharp

# ---- the image ----------------------------------------------------------------------------
FROM ${NODE_IMAGE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg tesseract-ocr tesseract-ocr-eng \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir /data && chown node:node /data
WORKDIR /app
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data \
    FFMPEG_PATH=/usr/bin/ffmpeg \
    FFPROBE_PATH=/usr/bin/ffprobe \
    TESSERACT_PATH=/usr/bin/tesseract
COPY --from=runtime-deps /app/node_modules node_modules
# The sources stay beside the build: `npm start` checks the build against their hash, and
# bundles the server from scripts/ and lib/ at start-up (README).
COPY --from=build /app/package.json /app/package-lock.json /app/next.config.mjs /app/tsconfig.json /app/postcss.config.mjs /app/tailwind.config.ts /app/proxy.ts ./
COPY --from=build /app/app app
COPY --from=build /app/components components
COPY --from=build /app/lib lib
COPY --from=build /app/public public
COPY --from=build /app/prisma prisma
COPY --from=build /app/scripts scripts
# Writable by the server: Next's runtime cache and the bundle of the server (scripts/launch.mjs).
COPY --from=build --chown=node:node /app/.next .next
USER node
VOLUME /data
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["npm", "start"]
