#!/bin/sh
docker compose -f docker-compose.test.yml run tests
