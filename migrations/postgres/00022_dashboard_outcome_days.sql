-- Dashboard read model (PostgreSQL): per UTC day and workflow, run attempts
-- in all, succeeded and failed (failure, timed_out, startup_failure), kept
-- current by a trigger on workflow_runs, so that the overview reads one row
-- per workflow and day.

-- +goose Up
CREATE TABLE dashboard_outcome_days (
    repository_id BIGINT NOT NULL,
    day           BIGINT NOT NULL,
    workflow_id   BIGINT NOT NULL,
    runs          BIGINT NOT NULL,
    succeeded     BIGINT NOT NULL,
    failed        BIGINT NOT NULL,
    PRIMARY KEY (repository_id, day, workflow_id)
);

INSERT INTO dashboard_outcome_days (repository_id, day, workflow_id, runs, succeeded, failed)
SELECT repository_id, floor(extract(epoch FROM created_at) / 86400)::bigint, workflow_id, count(*),
    count(*) FILTER (WHERE conclusion = 'success'),
    count(*) FILTER (WHERE conclusion IN ('failure', 'timed_out', 'startup_failure'))
FROM workflow_runs GROUP BY 1, 2, 3;

-- +goose StatementBegin
CREATE FUNCTION dashboard_outcomes_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.workflow_id = NEW.workflow_id AND OLD.conclusion = NEW.conclusion
        AND OLD.created_at = NEW.created_at THEN
        RETURN NULL;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE dashboard_outcome_days SET runs = runs - 1,
            succeeded = succeeded - (OLD.conclusion = 'success')::int,
            failed = failed - (OLD.conclusion IN ('failure', 'timed_out', 'startup_failure'))::int
        WHERE repository_id = OLD.repository_id AND day = floor(extract(epoch FROM OLD.created_at) / 86400)::bigint
            AND workflow_id = OLD.workflow_id;
        DELETE FROM dashboard_outcome_days
        WHERE repository_id = OLD.repository_id AND day = floor(extract(epoch FROM OLD.created_at) / 86400)::bigint
            AND workflow_id = OLD.workflow_id AND runs <= 0;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO dashboard_outcome_days AS d (repository_id, day, workflow_id, runs, succeeded, failed)
        VALUES (NEW.repository_id, floor(extract(epoch FROM NEW.created_at) / 86400)::bigint, NEW.workflow_id, 1,
            (NEW.conclusion = 'success')::int, (NEW.conclusion IN ('failure', 'timed_out', 'startup_failure'))::int)
        ON CONFLICT (repository_id, day, workflow_id) DO UPDATE SET runs = d.runs + 1,
            succeeded = d.succeeded + excluded.succeeded, failed = d.failed + excluded.failed;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER dashboard_outcomes_changed
AFTER INSERT OR DELETE OR UPDATE OF workflow_id, conclusion, created_at
ON workflow_runs FOR EACH ROW EXECUTE FUNCTION dashboard_outcomes_changed();

-- +goose Down
DROP TRIGGER dashboard_outcomes_changed ON workflow_runs;
DROP FUNCTION dashboard_outcomes_changed();
DROP TABLE dashboard_outcome_days;
