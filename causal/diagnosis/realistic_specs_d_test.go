package diagnosis

import (
	"fmt"
	"strings"
	"time"
)

// rsPipNetwork: a Python library tested on two interpreters; pip loses its
// connection to PyPI, exhausts its retries and then reports the misleading
// "from versions: none".
func rsPipNetwork() *rsScenario {
	workflow := `name: tests

on:
  push:
    branches: [main]
  pull_request:

jobs:
  pytest:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        python-version: ["3.11", "3.12"]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: ${{ matrix.python-version }}
      - name: Install
        run: |
          python -m pip install --upgrade pip
          pip install -r requirements/dev.txt
          pip install -e . --no-deps
      - name: Lint
        run: ruff check src tests
      - name: Test
        run: pytest -q -n 4 --cov=featurestore --cov-report=xml
`
	release := `name: release

on:
  release:
    types: [published]

jobs:
  pypi:
    runs-on: ubuntu-latest
    environment: pypi
    permissions:
      id-token: write
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - run: python -m pip install build && python -m build
      - uses: pypa/gh-action-pypi-publish@release/v1
`
	pkgs := []string{"numpy==2.1.3", "pandas==2.2.3", "pyarrow==18.0.0", "pydantic==2.9.2", "duckdb==1.1.3", "sqlalchemy==2.0.36"}
	py := func(c *rsCtx) string {
		if c.leg == "3.11" {
			return "3.11.10"
		}
		return "3.12.7"
	}
	collect := func(c *rsCtx, upto int) []string {
		out := []string{fmt.Sprintf("Requirement already satisfied: pip in /opt/hostedtoolcache/Python/%s/x64/lib/python%s/site-packages (24.2)", py(c), c.leg),
			"Collecting pip", "  Downloading pip-24.3.1-py3-none-any.whl.metadata (3.7 kB)", "Successfully installed pip-24.3.1"}
		for k, p := range pkgs[:upto] {
			out = append(out, fmt.Sprintf("Collecting %s (from -r requirements/dev.txt (line %d))", p, k+3),
				fmt.Sprintf("  Downloading %s-py3-none-any.whl.metadata (%d kB)", strings.ReplaceAll(p, "==", "-"), c.n(3, 60)))
		}
		return out
	}
	ptr := func(c *rsCtx) string { return "0x7f" + c.hex(10) }
	return &rsScenario{
		name: "rs-python-pip-network", repo: "meridian-ml/featurestore", repoID: 721560043, workflow: "tests",
		path: ".github/workflows/tests.yml", wfID: 90122761, jobName: "pytest", matrix: []string{"3.11", "3.12"},
		runner: rsRunner{labels: []string{"ubuntu-latest"}},
		steps: []rsStep{checkout(),
			{uses: "actions/setup-python@v5", with: []string{"python-version: 3.12", "check-latest: false", "token: ***", "update-environment: true"}, secs: [2]int{1, 4},
				out: func(c *rsCtx) []string {
					return []string{"Installed versions", fmt.Sprintf("Successfully set up CPython (%s)", py(c))}
				}},
			{name: "Install", run: []string{"python -m pip install --upgrade pip", "pip install -r requirements/dev.txt", "pip install -e . --no-deps"}, secs: [2]int{25, 50},
				out: func(c *rsCtx) []string {
					return append(collect(c, len(pkgs)), "Successfully installed duckdb-1.1.3 numpy-2.1.3 pandas-2.2.3 pyarrow-18.0.0 pydantic-2.9.2 pydantic-core-2.23.4 sqlalchemy-2.0.36",
						"Successfully installed featurestore-0.8.0.dev0")
				}},
			{name: "Lint", run: []string{"ruff check src tests"}, secs: [2]int{1, 2}, out: func(*rsCtx) []string { return []string{"All checks passed!"} }},
			{name: "Test", run: []string{"pytest -q -n 4 --cov=featurestore --cov-report=xml"}, secs: [2]int{80, 110}, out: func(c *rsCtx) []string {
				return []string{"4 workers [615 items]", strings.Repeat(".", 80), fmt.Sprintf("611 passed, 4 skipped in %ss (0:01:%02d)", c.secs(80, 99, 2), c.n(20, 39))}
			}},
		},
		files: map[string]string{".github/workflows/tests.yml": workflow, ".github/workflows/release.yml": release,
			"requirements/dev.txt":  "-r base.txt\npytest==8.3.3\npytest-xdist==3.6.1\npytest-cov==6.0.0\nruff==0.7.4\n",
			"requirements/base.txt": strings.Join(pkgs, "\n") + "\n",
			"pyproject.toml":        "[project]\nname = \"featurestore\"\ndynamic = [\"version\"]\nrequires-python = \">=3.11\"\n\n[tool.pytest.ini_options]\naddopts = \"--strict-markers\"\n"},
		history: "...p..Q....T..p...Q...q..Q...p..r...Q..x..p..Q...Q..p..T..Q",
		failures: map[byte]rsFailure{
			'Q': {step: "Install", exit: 1, secs: [2]int{90, 130}, out: func(c *rsCtx) []string {
				k := c.n(1, len(pkgs)-1)
				name, version, _ := strings.Cut(pkgs[k], "==")
				out := collect(c, k)
				path := "/simple/" + name + "/"
				for total := 4; total >= 0; total-- {
					why := c.pick(
						fmt.Sprintf("'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at %s>: Failed to establish a new connection: [Errno 101] Network is unreachable')'", ptr(c)),
						fmt.Sprintf("'ConnectTimeoutError(<pip._vendor.urllib3.connection.HTTPSConnection object at %s>, 'Connection to pypi.org timed out. (connect timeout=15)')'", ptr(c)),
						"'ReadTimeoutError(\"HTTPSConnectionPool(host='pypi.org', port=443): Read timed out. (read timeout=15)\")'")
					out = append(out, fmt.Sprintf("WARNING: Retrying (Retry(total=%d, connect=None, read=None, redirect=None, status=None)) after connection broken by %s: %s", total, why, path))
				}
				return append(out, fmt.Sprintf("ERROR: Could not find a version that satisfies the requirement %s==%s (from versions: none)", name, version),
					fmt.Sprintf("ERROR: No matching distribution found for %s==%s", name, version))
			}},
			'T': {step: "Test", exit: 1, secs: [2]int{80, 110}, out: func(c *rsCtx) []string {
				return []string{"4 workers [615 items]", strings.Repeat(".", 50) + "F" + strings.Repeat(".", 29),
					"=================================== FAILURES ===================================",
					"________________ test_incremental_window_is_idempotent[duckdb] _________________",
					"[gw2] linux -- Python " + py(c) + " /opt/hostedtoolcache/Python/" + py(c) + "/x64/bin/python",
					"tests/test_materialize.py:143: in test_incremental_window_is_idempotent",
					"    assert store.count(view) == 10_000",
					fmt.Sprintf("E   assert %d == 10000", c.n(9990, 9999)),
					"=========================== short test summary info ============================",
					"FAILED tests/test_materialize.py::test_incremental_window_is_idempotent[duckdb] - assert 9998 == 10000",
					fmt.Sprintf("1 failed, 610 passed, 4 skipped in %ss (0:01:%02d)", c.secs(80, 99, 2), c.n(20, 39))}
			}},
		},
		prBranches: []string{"feat/ttl-views", "fix/timezone-windows", "deps/pyarrow-18"}, prFail: 'T', rerunFail: 'Q',
		authors:  []string{"ravi-s", "emmaj", "t-okafor"},
		messages: []string{"Materialize: incremental windows", "Add TTL to online views", "Fix tz-aware window bounds", "Bump pyarrow to 18", "Docs: feature views"},
		start:    time.Date(2026, 8, 30, 6, 0, 0, 0, time.UTC),
		expect: rsExpect{verdict: "flaky", mechanism: "transient-network", cause: "Retrying (Retry(total=0", engineCause: "Retrying (Retry(total=0",
			producer: &rsAnchor{file: ".github/workflows/tests.yml", from: "pip install -r requirements/dev.txt"},
			patch:    true, patchFiles: []string{".github/workflows/tests.yml"}, ciOnly: &rsTrue, pattern: "intermittent"},
	}
}

// rsServiceHealth: a Laravel app whose MySQL service container has no health
// check, so the runner starts the steps while MySQL still initialises.
func rsServiceHealth() *rsScenario {
	workflow := `name: Laravel

on:
  push:
    branches: [main]
  pull_request:

jobs:
  phpunit:
    runs-on: ubuntu-24.04
    services:
      mysql:
        image: mysql:8.4
        env:
          MYSQL_ROOT_PASSWORD: secret
          MYSQL_DATABASE: invoicer_test
        ports:
          - 3306:3306
    env:
      DB_HOST: 127.0.0.1
      DB_PORT: 3306
      DB_PASSWORD: secret
    steps:
      - uses: actions/checkout@v4

      - uses: shivammathur/setup-php@v2
        with:
          php-version: '8.3'
          extensions: mbstring, pdo_mysql, bcmath
          coverage: none

      - name: Cache Composer packages
        uses: actions/cache@v4
        with:
          path: vendor
          key: composer-${{ hashFiles('composer.lock') }}

      - name: Install dependencies
        run: composer install --no-interaction --prefer-dist --no-progress

      - name: Prepare application
        run: |
          cp .env.ci .env
          php artisan key:generate

      - name: Migrate database
        run: php artisan migrate --force

      - name: Run tests
        run: php artisan test --parallel --processes=4
`
	migrations := []string{"0001_01_01_000000_create_users_table", "0001_01_01_000001_create_cache_table", "2024_05_02_101500_create_customers_table",
		"2024_05_02_101800_create_invoices_table", "2024_09_14_083000_add_due_reminders_to_invoices"}
	return &rsScenario{
		name: "rs-laravel-mysql-unhealthy", repo: "tollgate/invoicer", repoID: 698002117, workflow: "Laravel",
		path: ".github/workflows/laravel.yml", wfID: 84470092, jobName: "phpunit", runner: rsRunner{labels: []string{"ubuntu-24.04"}},
		services: []rsService{{name: "mysql", image: "mysql:8.4", port: "3306:3306"}},
		jobEnv:   []string{"DB_HOST: 127.0.0.1", "DB_PORT: 3306", "DB_PASSWORD: secret"},
		steps: []rsStep{checkout(),
			{uses: "shivammathur/setup-php@v2", with: []string{"php-version: 8.3", "extensions: mbstring, pdo_mysql, bcmath", "coverage: none"}, secs: [2]int{4, 12},
				out: func(c *rsCtx) []string {
					return []string{"==> Setup PHP", "✓ PHP Installed PHP 8.3.14", "==> Setup Extensions", "✓ mbstring Enabled", "✓ pdo_mysql Enabled", "✓ bcmath Enabled", "==> Setup Tools", "✓ composer Added composer 2.8.3"}
				}},
			{name: "Cache Composer packages", uses: "actions/cache@v4", with: []string{"path: vendor", "key: composer-9b1f0c7e52a4d6"}, post: true, secs: [2]int{1, 4},
				out: func(c *rsCtx) []string {
					return []string{fmt.Sprintf("Cache Size: ~%d MB (%d B)", c.n(40, 55), c.n(40_000_000, 55_000_000)), "Cache restored successfully", "Cache restored from key: composer-9b1f0c7e52a4d6"}
				}},
			{name: "Install dependencies", run: []string{"composer install --no-interaction --prefer-dist --no-progress"}, secs: [2]int{2, 6}, out: func(c *rsCtx) []string {
				return []string{"Installing dependencies from lock file (including require-dev)", "Verifying lock file contents can be installed on current platform.",
					"Nothing to install, update or remove", "Generating optimized autoload files", "> Illuminate\\Foundation\\ComposerScripts::postAutoloadDump",
					"> @php artisan package:discover --ansi", "", "   INFO  Discovering packages.  ", "", "  laravel/sanctum ........................................................ DONE",
					"93 packages you are using are looking for funding.", "Use the `composer fund` command to find out more!"}
			}},
			{name: "Prepare application", run: []string{"cp .env.ci .env", "php artisan key:generate"}, secs: [2]int{1, 2}, out: func(*rsCtx) []string {
				return []string{"", "   INFO  Application key set successfully.  ", ""}
			}},
			{name: "Migrate database", run: []string{"php artisan migrate --force"}, secs: [2]int{2, 4}, out: func(c *rsCtx) []string {
				out := []string{"", "   INFO  Preparing database.  ", "", fmt.Sprintf("  Creating migration table ............................................. %sms DONE", c.secs(10, 30, 2)), "", "   INFO  Running migrations.  ", ""}
				for _, m := range migrations {
					out = append(out, fmt.Sprintf("  %s %s %sms DONE", m, strings.Repeat(".", 66-len(m)), c.secs(8, 80, 2)))
				}
				return append(out, "")
			}},
			{name: "Run tests", run: []string{"php artisan test --parallel --processes=4"}, secs: [2]int{35, 50}, out: func(c *rsCtx) []string {
				return []string{"", "  Tests:    287 passed (903 assertions)", "  Duration: " + c.secs(34, 48, 2) + "s", "  Parallel: 4 processes", ""}
			}},
		},
		files: map[string]string{".github/workflows/laravel.yml": workflow,
			"composer.json": "{\n    \"name\": \"tollgate/invoicer\",\n    \"require\": {\n        \"php\": \"^8.3\",\n        \"laravel/framework\": \"^11.31\"\n    }\n}\n",
			".env.ci":       "APP_ENV=testing\nAPP_KEY=\nDB_CONNECTION=mysql\nDB_DATABASE=invoicer_test\nDB_USERNAME=root\nQUEUE_CONNECTION=sync\n",
			"Dockerfile":    "FROM composer:2.8 AS vendor\nWORKDIR /app\nCOPY composer.json composer.lock ./\nRUN composer install --no-dev --prefer-dist --no-scripts\n\nFROM php:8.3-fpm-bookworm\nWORKDIR /var/www/html\nCOPY --from=vendor /app/vendor ./vendor\nCOPY app app\nCOPY bootstrap bootstrap\nCOPY config config\nCOPY database database\nCOPY public public\nCOPY routes routes\nCOPY artisan composer.json ./\n"},
		history: "...M...p..T...M..q..M..p..M...x.p...M...T..p.M..M",
		failures: map[byte]rsFailure{
			'M': {step: "Migrate database", exit: 1, secs: [2]int{1, 2}, out: func(c *rsCtx) []string {
				return lines(`
   Illuminate\Database\QueryException 

  SQLSTATE[HY000] [2002] Connection refused (Connection: mysql, SQL: select exists (select 1 from information_schema.tables where table_schema = 'invoicer_test' and table_name = 'migrations' and table_type in ('BASE TABLE', 'SYSTEM VERSIONED')) as ` + "`exists`" + `)

  at vendor/laravel/framework/src/Illuminate/Database/Connection.php:825
    821▕                     $this->getName(), $query, $this->prepareBindings($bindings), $e
    822▕                 );
    823▕             }
    824▕ 
  ➜ 825▕             throw new QueryException(
    826▕                 $this->getName(), $query, $this->prepareBindings($bindings), $e
    827▕             );
    828▕         }
    829▕     }

      +41 vendor frames 

  42  artisan:13
      Illuminate\Foundation\Application::handleCommand(Object(Symfony\Component\Console\Input\ArgvInput))
`)
			}},
			'T': {step: "Run tests", exit: 2, secs: [2]int{35, 50}, out: func(c *rsCtx) []string {
				return []string{"", "  FAILED  Tests\\Feature\\InvoiceReminderTest > it sends a reminder three days before due", "  Failed asserting that actual size 0 matches expected size 1.", "",
					"  at tests/Feature/InvoiceReminderTest.php:47", "     43▕         $this->travelTo(now()->addDays(4)->startOfDay());", "  ➜  47▕         Notification::assertSentToTimes($customer, DueReminder::class, 1);", "",
					"  Tests:    1 failed, 286 passed (902 assertions)", "  Duration: " + c.secs(34, 48, 2) + "s", "  Parallel: 4 processes", ""}
			}},
		},
		prBranches: []string{"feature/dunning", "fix/vat-rounding"}, prFail: 'T', rerunFail: 'M',
		authors:  []string{"lucia-m", "benoit", "yusuf-a"},
		messages: []string{"Add dunning schedule", "Fix VAT rounding on credit notes", "Customer portal: download PDFs", "Queue reminder mails", "Upgrade to Laravel 11.31"},
		start:    time.Date(2026, 9, 15, 7, 0, 0, 0, time.UTC),
		expect: rsExpect{verdict: "flaky", mechanism: "ordering", cause: "Connection refused",
			producer: &rsAnchor{file: ".github/workflows/laravel.yml", from: "      mysql:", to: "- 3306:3306"},
			patch:    true, patchFiles: []string{".github/workflows/laravel.yml"}, ciOnly: &rsTrue, pattern: "intermittent"},
	}
}
