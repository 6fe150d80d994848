# Polylane: a static binary in a distroless image, running as a non-root user.
#   docker build --build-arg VERSION=$(git describe --tags --always) --build-arg COMMIT=$(git rev-parse --short HEAD) -t polylane .
#   docker run -p 8080:8080 -e POLYLANE_WEBHOOK_SECRET=... -e POLYLANE_DATABASE_URL=postgres://... polylane

FROM golang:1.26.8-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=unknown
RUN CGO_ENABLED=0 go build -trimpath \
    -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT}" \
    -o /out/polylane ./cmd/polylane

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/polylane /usr/local/bin/polylane
# The default SQLite file lands in the working directory, which the nonroot
# user (65532) owns; mount a volume here to keep it.
WORKDIR /home/nonroot
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/polylane"]
CMD ["serve"]
