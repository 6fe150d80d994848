package main

import (
	"context"
	"errors"
	"fmt"
)

const migrateSummary = `Applies Polylane's pending schema migrations and River's queue migrations to
the configured database (creating the SQLite file if needed), then exits.
Safe to run again, and from several replicas at once on PostgreSQL.`

func runMigrate(ctx context.Context, inv *invocation) int {
	cfg, err := loadConfig(cmdMigrate, migrateSummary, inv.args, inv.getenv, inv.stdout)
	if errors.Is(err, errHelp) {
		return exitOK
	}
	if err != nil {
		return reportConfigError(inv.stderr, err)
	}
	log := newLogger(cfg, inv.stderr)
	st, err := openStore(ctx, cfg, log)
	if err != nil {
		return reportConfigError(inv.stderr, err)
	}
	defer st.Close()
	rep, err := st.Migrate(ctx)
	if err != nil {
		fmt.Fprintf(inv.stderr, "polylane: migrate %s: %s\n", describeDB(cfg), flatten(err.Error()))
		return exitFailure
	}
	fmt.Fprintf(inv.stdout, "migrated %s: schema version %d (%d applied), queue schema version %d (%d applied)\n",
		describeDB(cfg), rep.SchemaVersion, rep.SchemaApplied, rep.QueueVersion, rep.QueueApplied)
	return exitOK
}
