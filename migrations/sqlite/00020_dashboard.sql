-- Dashboard read models (SQLite): per-day run counts and the workflows seen,
-- kept current by triggers on workflow_runs, and an index for the list of
-- recent diagnoses. Days are whole UTC days since the Unix epoch.

-- +goose Up
CREATE TABLE dashboard_run_days (
    repository_id INTEGER NOT NULL,
    workflow_id   INTEGER NOT NULL,
    day           INTEGER NOT NULL,
    conclusion    TEXT    NOT NULL,
    runs          INTEGER NOT NULL,
    PRIMARY KEY (repository_id, day, workflow_id, conclusion)
) STRICT, WITHOUT ROWID;

CREATE TABLE dashboard_workflows (
    repository_id INTEGER NOT NULL,
    workflow_id   INTEGER NOT NULL,
    name          TEXT    NOT NULL,
    path          TEXT    NOT NULL,
    last_run_at   INTEGER NOT NULL,
    PRIMARY KEY (repository_id, workflow_id)
) STRICT, WITHOUT ROWID;

INSERT INTO dashboard_run_days (repository_id, workflow_id, day, conclusion, runs)
SELECT repository_id, workflow_id, created_at / 86400000000, conclusion, count(*)
FROM workflow_runs GROUP BY 1, 2, 3, 4;

INSERT INTO dashboard_workflows (repository_id, workflow_id, name, path, last_run_at)
SELECT repository_id, workflow_id, workflow_name, workflow_path, max(created_at)
FROM workflow_runs GROUP BY repository_id, workflow_id;

-- +goose StatementBegin
CREATE TRIGGER dashboard_runs_insert AFTER INSERT ON workflow_runs BEGIN
    INSERT INTO dashboard_run_days (repository_id, workflow_id, day, conclusion, runs)
    VALUES (NEW.repository_id, NEW.workflow_id, NEW.created_at / 86400000000, NEW.conclusion, 1)
    ON CONFLICT (repository_id, day, workflow_id, conclusion) DO UPDATE SET runs = runs + 1;
    INSERT INTO dashboard_workflows (repository_id, workflow_id, name, path, last_run_at)
    VALUES (NEW.repository_id, NEW.workflow_id, NEW.workflow_name, NEW.workflow_path, NEW.created_at)
    ON CONFLICT (repository_id, workflow_id) DO UPDATE SET
        name = CASE WHEN excluded.last_run_at >= last_run_at THEN excluded.name ELSE name END,
        path = CASE WHEN excluded.last_run_at >= last_run_at THEN excluded.path ELSE path END,
        last_run_at = max(last_run_at, excluded.last_run_at);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER dashboard_runs_update AFTER UPDATE OF workflow_id, conclusion, created_at, workflow_name, workflow_path
ON workflow_runs
WHEN OLD.workflow_id IS NOT NEW.workflow_id OR OLD.conclusion IS NOT NEW.conclusion
    OR OLD.created_at IS NOT NEW.created_at OR OLD.workflow_name IS NOT NEW.workflow_name
    OR OLD.workflow_path IS NOT NEW.workflow_path
BEGIN
    UPDATE dashboard_run_days SET runs = runs - 1
    WHERE repository_id = OLD.repository_id AND day = OLD.created_at / 86400000000
        AND workflow_id = OLD.workflow_id AND conclusion = OLD.conclusion;
    DELETE FROM dashboard_run_days
    WHERE repository_id = OLD.repository_id AND day = OLD.created_at / 86400000000
        AND workflow_id = OLD.workflow_id AND conclusion = OLD.conclusion AND runs <= 0;
    INSERT INTO dashboard_run_days (repository_id, workflow_id, day, conclusion, runs)
    VALUES (NEW.repository_id, NEW.workflow_id, NEW.created_at / 86400000000, NEW.conclusion, 1)
    ON CONFLICT (repository_id, day, workflow_id, conclusion) DO UPDATE SET runs = runs + 1;
    INSERT INTO dashboard_workflows (repository_id, workflow_id, name, path, last_run_at)
    VALUES (NEW.repository_id, NEW.workflow_id, NEW.workflow_name, NEW.workflow_path, NEW.created_at)
    ON CONFLICT (repository_id, workflow_id) DO UPDATE SET
        name = CASE WHEN excluded.last_run_at >= last_run_at THEN excluded.name ELSE name END,
        path = CASE WHEN excluded.last_run_at >= last_run_at THEN excluded.path ELSE path END,
        last_run_at = max(last_run_at, excluded.last_run_at);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER dashboard_runs_delete AFTER DELETE ON workflow_runs BEGIN
    UPDATE dashboard_run_days SET runs = runs - 1
    WHERE repository_id = OLD.repository_id AND day = OLD.created_at / 86400000000
        AND workflow_id = OLD.workflow_id AND conclusion = OLD.conclusion;
    DELETE FROM dashboard_run_days
    WHERE repository_id = OLD.repository_id AND day = OLD.created_at / 86400000000
        AND workflow_id = OLD.workflow_id AND conclusion = OLD.conclusion AND runs <= 0;
END;
-- +goose StatementEnd

CREATE INDEX dashboard_diagnoses_recent ON diagnoses (repository_id, created_at DESC, id DESC);
CREATE INDEX dashboard_diagnoses_class_recent ON diagnoses (repository_id, class_id, created_at DESC, id DESC);

-- +goose Down
DROP INDEX dashboard_diagnoses_class_recent;
DROP INDEX dashboard_diagnoses_recent;
DROP TRIGGER dashboard_runs_delete;
DROP TRIGGER dashboard_runs_update;
DROP TRIGGER dashboard_runs_insert;
DROP TABLE dashboard_workflows;
DROP TABLE dashboard_run_days;
