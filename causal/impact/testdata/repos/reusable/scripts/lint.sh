#!/bin/sh
golangci-lint run
