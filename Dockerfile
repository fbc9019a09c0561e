# syntax=docker/dockerfile:1
# SubLedger: build on the official Swift image, run on Debian with only libpq at runtime.

ARG SWIFT_VERSION=6.3
FROM swift:${SWIFT_VERSION}-bookworm AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends libpq-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /build
# Resolve dependencies in their own layer so source edits don't refetch them.
COPY Package.swift ./
RUN swift package resolve
COPY . .
RUN swift build -c release --product subledger --static-swift-stdlib \
    && mkdir /staging \
    && cp "$(swift build -c release --show-bin-path)/subledger" /staging/ \
    && find "$(swift build -c release --show-bin-path)" -maxdepth 1 -name '*.resources' -exec cp -R {} /staging/ \;

FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends libpq5 ca-certificates tzdata \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 1000 --home-dir /app subledger
WORKDIR /app
COPY --from=build --chown=subledger:subledger /staging/ /app/
USER subledger
ENV SUBLEDGER_HOST=0.0.0.0 \
    SUBLEDGER_PORT=8080 \
    SUBLEDGER_DATA_DIR=/app/data
EXPOSE 8080
ENTRYPOINT ["/app/subledger"]
CMD ["serve"]
