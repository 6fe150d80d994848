-- Dashboard read models (PostgreSQL): per-day run counts and the workflows
-- seen, kept current by a trigger on workflow_runs, and indexes for the lists
-- of recent diagnoses. Days are whole UTC days since the Unix epoch.

-- +goose Up
CREATE TABLE dashboard_run_days (
    repository_id BIGINT NOT NULL,
    workflow_id   BIGINT NOT NULL,
    day           BIGINT NOT NULL,
    conclusion    TEXT   NOT NULL,
    runs          BIGINT NOT NULL,
    PRIMARY KEY (repository_id, day, workflow_id, conclusion)
);

CREATE TABLE dashboard_workflows (
    repository_id BIGINT      NOT NULL,
    workflow_id   BIGINT      NOT NULL,
    name          TEXT        NOT NULL,
    path          TEXT        NOT NULL,
    last_run_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (repository_id, workflow_id)
);

INSERT INTO dashboard_run_days (repository_id, workflow_id, day, conclusion, runs)
SELECT repository_id, workflow_id, floor(extract(epoch FROM created_at) / 86400)::bigint, conclusion, count(*)
FROM workflow_runs GROUP BY 1, 2, 3, 4;

INSERT INTO dashboard_workflows (repository_id, workflow_id, name, path, last_run_at)
SELECT DISTINCT ON (repository_id, workflow_id) repository_id, workflow_id, workflow_name, workflow_path, created_at
FROM workflow_runs ORDER BY repository_id, workflow_id, created_at DESC;

-- +goose StatementBegin
CREATE FUNCTION dashboard_runs_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.workflow_id = NEW.workflow_id AND OLD.conclusion = NEW.conclusion
        AND OLD.created_at = NEW.created_at AND OLD.workflow_name = NEW.workflow_name
        AND OLD.workflow_path = NEW.workflow_path THEN
        RETURN NULL;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE dashboard_run_days SET runs = runs - 1
        WHERE repository_id = OLD.repository_id AND day = floor(extract(epoch FROM OLD.created_at) / 86400)::bigint
            AND workflow_id = OLD.workflow_id AND conclusion = OLD.conclusion;
        DELETE FROM dashboard_run_days
        WHERE repository_id = OLD.repository_id AND day = floor(extract(epoch FROM OLD.created_at) / 86400)::bigint
            AND workflow_id = OLD.workflow_id AND conclusion = OLD.conclusion AND runs <= 0;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO dashboard_run_days AS d (repository_id, workflow_id, day, conclusion, runs)
        VALUES (NEW.repository_id, NEW.workflow_id, floor(extract(epoch FROM NEW.created_at) / 86400)::bigint,
            NEW.conclusion, 1)
        ON CONFLICT (repository_id, day, workflow_id, conclusion) DO UPDATE SET runs = d.runs + 1;
        INSERT INTO dashboard_workflows AS w (repository_id, workflow_id, name, path, last_run_at)
        VALUES (NEW.repository_id, NEW.workflow_id, NEW.workflow_name, NEW.workflow_path, NEW.created_at)
        ON CONFLICT (repository_id, workflow_id) DO UPDATE SET
            name = CASE WHEN excluded.last_run_at >= w.last_run_at THEN excluded.name ELSE w.name END,
            path = CASE WHEN excluded.last_run_at >= w.last_run_at THEN excluded.path ELSE w.path END,
            last_run_at = greatest(w.last_run_at, excluded.last_run_at);
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER dashboard_runs_changed
AFTER INSERT OR DELETE OR UPDATE OF workflow_id, conclusion, created_at, workflow_name, workflow_path
ON workflow_runs FOR EACH ROW EXECUTE FUNCTION dashboard_runs_changed();

CREATE INDEX dashboard_diagnoses_recent ON diagnoses (repository_id, created_at DESC, id DESC);
CREATE INDEX dashboard_diagnoses_class_recent ON diagnoses (repository_id, class_id, created_at DESC, id DESC);

-- +goose Down
DROP INDEX dashboard_diagnoses_class_recent;
DROP INDEX dashboard_diagnoses_recent;
DROP TRIGGER dashboard_runs_changed ON workflow_runs;
DROP FUNCTION dashboard_runs_changed();
DROP TABLE dashboard_workflows;
DROP TABLE dashboard_run_days;
