// Package dashboardtest fills a store with generated run history through the
// Store API, for the dashboard's tests, its page-speed benchmark and its
// browser tests: installations, repositories, workflows, runs per day with
// outcomes, failure occurrences and classes, diagnoses and a merged fix pull
// request, all derived from a seed.
package dashboardtest
