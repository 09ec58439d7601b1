# latlab in a container: the load generator, and the node that the
# manifests of "latlab graph manifests" run in Kubernetes.
#
#   docker build -t latlab .                        # small: distroless, static binary
#   docker build -t latlab:stress --target stress . # with stress-ng
#
# The default image has nothing but latlab: no shell, no tools. Stress steps
# and /load run stress-ng, and fork steps run their commands (such as date),
# so a topology that uses them needs the "stress" image below, a Debian with
# stress-ng and coreutils.

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /latlab ./cmd/latlab

# latlab with stress-ng, for topologies with stress or fork steps:
# docker build --target stress.
FROM debian:12-slim AS stress
RUN apt-get update \
    && apt-get install -y --no-install-recommends stress-ng ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /latlab /latlab
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/latlab"]

# The default image, last so that a plain "docker build" makes it: a static
# binary on distroless (CA certificates, tzdata, a nonroot user 65532).
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /latlab /latlab
EXPOSE 8080
ENTRYPOINT ["/latlab"]
