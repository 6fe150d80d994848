module github.com/canopy-io/lease-operator

go 1.23.3
