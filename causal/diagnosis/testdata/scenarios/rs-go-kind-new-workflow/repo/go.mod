module github.com/tessera-io/queue-operator

go 1.23.4
