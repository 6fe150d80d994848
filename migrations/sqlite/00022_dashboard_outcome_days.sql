-- Dashboard read model (SQLite): per UTC day and workflow, run attempts in
-- all, succeeded and failed (failure, timed_out, startup_failure), kept
-- current by triggers on workflow_runs, so that the overview reads one row
-- per workflow and day.

-- +goose Up
CREATE TABLE dashboard_outcome_days (
    repository_id INTEGER NOT NULL,
    day           INTEGER NOT NULL,
    workflow_id   INTEGER NOT NULL,
    runs          INTEGER NOT NULL,
    succeeded     INTEGER NOT NULL,
    failed        INTEGER NOT NULL,
    PRIMARY KEY (repository_id, day, workflow_id)
) STRICT, WITHOUT ROWID;

INSERT INTO dashboard_outcome_days (repository_id, day, workflow_id, runs, succeeded, failed)
SELECT repository_id, created_at / 86400000000, workflow_id, count(*),
    sum(conclusion = 'success'), sum(conclusion IN ('failure', 'timed_out', 'startup_failure'))
FROM workflow_runs GROUP BY 1, 2, 3;

-- +goose StatementBegin
CREATE TRIGGER dashboard_outcomes_insert AFTER INSERT ON workflow_runs BEGIN
    INSERT INTO dashboard_outcome_days (repository_id, day, workflow_id, runs, succeeded, failed)
    VALUES (NEW.repository_id, NEW.created_at / 86400000000, NEW.workflow_id, 1, NEW.conclusion = 'success',
        NEW.conclusion IN ('failure', 'timed_out', 'startup_failure'))
    ON CONFLICT (repository_id, day, workflow_id) DO UPDATE SET runs = runs + 1,
        succeeded = succeeded + excluded.succeeded, failed = failed + excluded.failed;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER dashboard_outcomes_update AFTER UPDATE OF workflow_id, conclusion, created_at ON workflow_runs
WHEN OLD.workflow_id IS NOT NEW.workflow_id OR OLD.conclusion IS NOT NEW.conclusion OR OLD.created_at IS NOT NEW.created_at
BEGIN
    UPDATE dashboard_outcome_days SET runs = runs - 1, succeeded = succeeded - (OLD.conclusion = 'success'),
        failed = failed - (OLD.conclusion IN ('failure', 'timed_out', 'startup_failure'))
    WHERE repository_id = OLD.repository_id AND day = OLD.created_at / 86400000000 AND workflow_id = OLD.workflow_id;
    DELETE FROM dashboard_outcome_days
    WHERE repository_id = OLD.repository_id AND day = OLD.created_at / 86400000000 AND workflow_id = OLD.workflow_id
        AND runs <= 0;
    INSERT INTO dashboard_outcome_days (repository_id, day, workflow_id, runs, succeeded, failed)
    VALUES (NEW.repository_id, NEW.created_at / 86400000000, NEW.workflow_id, 1, NEW.conclusion = 'success',
        NEW.conclusion IN ('failure', 'timed_out', 'startup_failure'))
    ON CONFLICT (repository_id, day, workflow_id) DO UPDATE SET runs = runs + 1,
        succeeded = succeeded + excluded.succeeded, failed = failed + excluded.failed;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER dashboard_outcomes_delete AFTER DELETE ON workflow_runs BEGIN
    UPDATE dashboard_outcome_days SET runs = runs - 1, succeeded = succeeded - (OLD.conclusion = 'success'),
        failed = failed - (OLD.conclusion IN ('failure', 'timed_out', 'startup_failure'))
    WHERE repository_id = OLD.repository_id AND day = OLD.created_at / 86400000000 AND workflow_id = OLD.workflow_id;
    DELETE FROM dashboard_outcome_days
    WHERE repository_id = OLD.repository_id AND day = OLD.created_at / 86400000000 AND workflow_id = OLD.workflow_id
        AND runs <= 0;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER dashboard_outcomes_delete;
DROP TRIGGER dashboard_outcomes_update;
DROP TRIGGER dashboard_outcomes_insert;
DROP TABLE dashboard_outcome_days;
