package main

import (
	"fmt"
	"time"
)

// queueConfig holds the settings of the queue's jobs that matter when
// several replicas share one PostgreSQL queue.
type queueConfig struct {
	// JobTimeout bounds one job's run.
	JobTimeout time.Duration
	// RescueAfter is how long a job may stay running before the queue takes
	// it for the leftover of a crashed process and works it again.
	RescueAfter time.Duration
}

// Defaults: a cold diagnosis reads a whole window, so jobs get ten minutes
// (worker.DefaultJobTimeout); a job left running by a killed replica is
// worked again five minutes after that bound.
const (
	defaultJobTimeout  = "10m"
	defaultRescueAfter = "15m"
)

// queueSettings are the queue's rows of the settings table. Their order
// matters: the rescue delay is checked against the job timeout.
var queueSettings = []setting{
	{Env: "POLYLANE_JOB_TIMEOUT", Flag: "job-timeout", Default: defaultJobTimeout, Commands: []string{cmdServe},
		Usage: "How long one queued job (diagnosis, publishing, fix pull request) may run before it is cancelled and retried.",
		set:   setJobTimeout},
	{Env: "POLYLANE_RESCUE_STUCK_JOBS_AFTER", Flag: "rescue-stuck-jobs-after", Default: defaultRescueAfter, Commands: []string{cmdServe},
		Usage: "How long a job may stay running before a replica takes it for the leftover of a crashed process and works it again; longer than POLYLANE_JOB_TIMEOUT.",
		set:   setRescueAfter},
}

func setJobTimeout(c *Config, v string) error {
	d, err := time.ParseDuration(v)
	if err != nil || d < time.Second || d > 24*time.Hour {
		return fmt.Errorf("%q is not a duration from 1s to 24h", v)
	}
	c.Queue.JobTimeout = d
	return nil
}

func setRescueAfter(c *Config, v string) error {
	d, err := time.ParseDuration(v)
	if err != nil || d < time.Second || d > 48*time.Hour {
		return fmt.Errorf("%q is not a duration from 1s to 48h", v)
	}
	if d <= c.Queue.JobTimeout {
		return fmt.Errorf("%s must be longer than POLYLANE_JOB_TIMEOUT (%s): a job still working would be worked twice", v, c.Queue.JobTimeout)
	}
	c.Queue.RescueAfter = d
	return nil
}
