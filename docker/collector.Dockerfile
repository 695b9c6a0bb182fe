# The lanewatch collector, built from collector-config/builder-config.yaml with the OpenTelemetry
# Collector Builder (the same manifest and builder version as scripts/collector.sh), on a static base.
FROM golang:1.26-bookworm AS build
ARG BUILDER_VERSION=v0.161.0
ENV CGO_ENABLED=0 GOFLAGS=-buildvcs=false
RUN go install go.opentelemetry.io/collector/cmd/builder@${BUILDER_VERSION}
WORKDIR /build
COPY collector-config/builder-config.yaml ./
RUN --mount=type=cache,target=/root/.cache/go-build --mount=type=cache,target=/go/pkg/mod \
    builder --config builder-config.yaml

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /build/dist/otelcol-lanewatch /otelcol-lanewatch
COPY collector-config/*.yaml /etc/lanewatch/
# Inside a container the receivers and the health check listen on every interface.
ENV LANEWATCH_OTLP_GRPC_ENDPOINT=0.0.0.0:4317 \
    LANEWATCH_OTLP_HTTP_ENDPOINT=0.0.0.0:4318 \
    LANEWATCH_HEALTH_CHECK_ENDPOINT=0.0.0.0:13133
EXPOSE 4317 4318 13133
ENTRYPOINT ["/otelcol-lanewatch"]
CMD ["--config=/etc/lanewatch/collector.yaml"]
