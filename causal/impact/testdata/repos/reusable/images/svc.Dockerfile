FROM golang:1.22 AS b
COPY . /src
RUN cd /src && go build -o /svc ./cmd/svc
FROM scratch
COPY --from=b /svc /svc
