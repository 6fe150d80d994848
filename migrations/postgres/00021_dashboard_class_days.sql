-- Dashboard read model (PostgreSQL): per UTC day, workflow and failure class,
-- the number of run attempts in which the class occurred, kept current by
-- statement triggers on failure_occurrences (transition tables see every row
-- a statement inserted or deleted, so a run attempt counts once per class
-- however many of its jobs or steps failed that way).

-- +goose Up
CREATE TABLE dashboard_class_days (
    repository_id BIGINT NOT NULL,
    day           BIGINT NOT NULL,
    workflow_id   BIGINT NOT NULL,
    class_id      TEXT   NOT NULL,
    runs          BIGINT NOT NULL,
    PRIMARY KEY (repository_id, day, workflow_id, class_id)
);

INSERT INTO dashboard_class_days (repository_id, day, workflow_id, class_id, runs)
SELECT repository_id, day, workflow_id, class_id, count(*) FROM (
    SELECT DISTINCT o.repository_id, floor(extract(epoch FROM r.created_at) / 86400)::bigint AS day, r.workflow_id,
        o.class_id, o.run_id, o.attempt
    FROM failure_occurrences o JOIN workflow_runs r
        ON r.repository_id = o.repository_id AND r.run_id = o.run_id AND r.attempt = o.attempt
) per_run GROUP BY repository_id, day, workflow_id, class_id;

-- +goose StatementBegin
CREATE FUNCTION dashboard_occurrences_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO dashboard_class_days AS d (repository_id, day, workflow_id, class_id, runs)
    SELECT r.repository_id, floor(extract(epoch FROM r.created_at) / 86400)::bigint, r.workflow_id, n.class_id, count(*)
    FROM (SELECT DISTINCT repository_id, run_id, attempt, class_id FROM new_rows) n
    JOIN workflow_runs r ON r.repository_id = n.repository_id AND r.run_id = n.run_id AND r.attempt = n.attempt
    WHERE (SELECT count(*) FROM failure_occurrences o WHERE o.repository_id = n.repository_id AND o.run_id = n.run_id
            AND o.attempt = n.attempt AND o.class_id = n.class_id)
        = (SELECT count(*) FROM new_rows x WHERE x.repository_id = n.repository_id AND x.run_id = n.run_id
            AND x.attempt = n.attempt AND x.class_id = n.class_id)
    GROUP BY 1, 2, 3, 4
    ON CONFLICT (repository_id, day, workflow_id, class_id) DO UPDATE SET runs = d.runs + excluded.runs;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION dashboard_occurrences_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    WITH gone AS (
        SELECT r.repository_id, floor(extract(epoch FROM r.created_at) / 86400)::bigint AS day, r.workflow_id,
            g.class_id, count(*) AS runs
        FROM (SELECT DISTINCT repository_id, run_id, attempt, class_id FROM old_rows) g
        JOIN workflow_runs r ON r.repository_id = g.repository_id AND r.run_id = g.run_id AND r.attempt = g.attempt
        WHERE NOT EXISTS (SELECT 1 FROM failure_occurrences o WHERE o.repository_id = g.repository_id
            AND o.run_id = g.run_id AND o.attempt = g.attempt AND o.class_id = g.class_id)
        GROUP BY 1, 2, 3, 4
    )
    UPDATE dashboard_class_days d SET runs = d.runs - gone.runs FROM gone
    WHERE d.repository_id = gone.repository_id AND d.day = gone.day AND d.workflow_id = gone.workflow_id
        AND d.class_id = gone.class_id;
    DELETE FROM dashboard_class_days WHERE runs <= 0
        AND (repository_id, class_id) IN (SELECT DISTINCT repository_id, class_id FROM old_rows);
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER dashboard_occurrences_inserted AFTER INSERT ON failure_occurrences
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION dashboard_occurrences_inserted();
CREATE TRIGGER dashboard_occurrences_deleted AFTER DELETE ON failure_occurrences
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION dashboard_occurrences_deleted();

-- +goose Down
DROP TRIGGER dashboard_occurrences_deleted ON failure_occurrences;
DROP TRIGGER dashboard_occurrences_inserted ON failure_occurrences;
DROP FUNCTION dashboard_occurrences_deleted();
DROP FUNCTION dashboard_occurrences_inserted();
DROP TABLE dashboard_class_days;
