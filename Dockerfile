# The production image (docs/operations.md, "Deploy"). The build stage runs the production install
# that CI checks, scripts/production-install.sh; the final stage holds its runtime tree only and
# runs it on the image's own Node, as a user without privileges.

FROM node:24-slim AS build
WORKDIR /src
COPY . .
RUN bash scripts/production-install.sh /opt/entry-sign-in

FROM node:24-slim
# Containers listen on every interface; the state of an instance on PGlite lives in the volume.
ENV BIND_ADDRESS=0.0.0.0 \
    DATA_DIR=/var/lib/entry-sign-in
COPY --from=build /opt/entry-sign-in /opt/entry-sign-in
RUN mkdir -p /var/lib/entry-sign-in && chown node:node /var/lib/entry-sign-in
WORKDIR /opt/entry-sign-in
USER node
VOLUME /var/lib/entry-sign-in
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=3s --start-period=30s --retries=3 \
    CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 8080}/api/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Node runs as PID 1 and receives SIGTERM itself: the server closes gracefully on it.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "--max-semi-space-size=4", "--heap-growing-percent=50", "apps/server/dist/main.js"]
CMD ["serve"]
