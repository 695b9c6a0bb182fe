# lanewatch serve, built from the workspace sources (tsc --build), run on Node 24.
FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
COPY packages/instrumentation/package.json packages/instrumentation/
COPY packages/simulator/package.json packages/simulator/
COPY packages/processor/package.json packages/processor/
COPY test/package.json test/
# --ignore-scripts: the repo's `node` devDependency would install a second Node; the image has one.
# Without its install script that package's bin is no Node, so tsc is run with the image's `node`
# rather than through npx (which would put node_modules/.bin first on PATH).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.base.json tsconfig.json ./
COPY packages packages
RUN node node_modules/typescript/bin/tsc --build \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules node_modules
COPY --from=build /src/packages packages
USER node
EXPOSE 4320
ENTRYPOINT ["node", "packages/processor/dist/cli.js"]
CMD ["serve", "--host=0.0.0.0", "--port=4320"]
