-- Dashboard read model (SQLite): per UTC day, workflow and failure class, the
-- number of run attempts in which the class occurred, kept current by
-- triggers on failure_occurrences. A run attempt counts once per class
-- however many of its jobs or steps failed that way. The day and workflow
-- are the run's when the occurrence is stored.

-- +goose Up
CREATE TABLE dashboard_class_days (
    repository_id INTEGER NOT NULL,
    day           INTEGER NOT NULL,
    workflow_id   INTEGER NOT NULL,
    class_id      TEXT    NOT NULL,
    runs          INTEGER NOT NULL,
    PRIMARY KEY (repository_id, day, workflow_id, class_id)
) STRICT, WITHOUT ROWID;

INSERT INTO dashboard_class_days (repository_id, day, workflow_id, class_id, runs)
SELECT repository_id, day, workflow_id, class_id, count(*) FROM (
    SELECT DISTINCT o.repository_id, r.created_at / 86400000000 AS day, r.workflow_id, o.class_id, o.run_id, o.attempt
    FROM failure_occurrences o JOIN workflow_runs r
        ON r.repository_id = o.repository_id AND r.run_id = o.run_id AND r.attempt = o.attempt
) GROUP BY repository_id, day, workflow_id, class_id;

-- +goose StatementBegin
CREATE TRIGGER dashboard_occurrences_insert AFTER INSERT ON failure_occurrences
WHEN NOT EXISTS (SELECT 1 FROM failure_occurrences o
    WHERE o.repository_id = NEW.repository_id AND o.run_id = NEW.run_id AND o.attempt = NEW.attempt
        AND o.class_id = NEW.class_id AND (o.job_id <> NEW.job_id OR o.step_number <> NEW.step_number))
BEGIN
    INSERT INTO dashboard_class_days (repository_id, day, workflow_id, class_id, runs)
    SELECT r.repository_id, r.created_at / 86400000000, r.workflow_id, NEW.class_id, 1 FROM workflow_runs r
    WHERE r.repository_id = NEW.repository_id AND r.run_id = NEW.run_id AND r.attempt = NEW.attempt
    ON CONFLICT (repository_id, day, workflow_id, class_id) DO UPDATE SET runs = runs + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER dashboard_occurrences_delete AFTER DELETE ON failure_occurrences
WHEN NOT EXISTS (SELECT 1 FROM failure_occurrences o
    WHERE o.repository_id = OLD.repository_id AND o.run_id = OLD.run_id AND o.attempt = OLD.attempt
        AND o.class_id = OLD.class_id)
BEGIN
    UPDATE dashboard_class_days SET runs = runs - 1
    WHERE (repository_id, day, workflow_id, class_id) IN (
        SELECT r.repository_id, r.created_at / 86400000000, r.workflow_id, OLD.class_id FROM workflow_runs r
        WHERE r.repository_id = OLD.repository_id AND r.run_id = OLD.run_id AND r.attempt = OLD.attempt);
    DELETE FROM dashboard_class_days WHERE repository_id = OLD.repository_id AND class_id = OLD.class_id AND runs <= 0;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER dashboard_occurrences_delete;
DROP TRIGGER dashboard_occurrences_insert;
DROP TABLE dashboard_class_days;
