package diagnosis

import (
	"fmt"
	"time"
)

// rsDiskFull: a forecasting service whose CI builds a CUDA image on a hosted
// runner; the layers of the base image and of the Python wheels do not fit
// in the runner's free disk on some runs. The checkout action itself loses
// GitHub now and then and gives up after its own retries.
func rsDiskFull() *rsScenario {
	workflow := `name: Image

on:
  push:
    branches: [main]
  pull_request:
    paths: ['docker/**', 'forecast/**', 'requirements*.txt']

jobs:
  build-image:
    runs-on: ubuntu-22.04
    steps:
      - uses: actions/checkout@v4

      - uses: docker/setup-buildx-action@v3

      - name: Build image
        run: docker buildx build --load -t forecast-gpu:ci -f docker/Dockerfile.gpu .

      - name: Smoke test
        run: docker run --rm forecast-gpu:ci python -m forecast.selftest
`
	publish := `name: Publish

on:
  release:
    types: [published]

jobs:
  push:
    runs-on: ubuntu-22.04
    permissions:
      contents: read
      packages: write
    steps:
      - uses: actions/checkout@v4
      - uses: docker/login-action@v3
        with:
          registry: ghcr.io
          username: ${{ github.actor }}
          password: ${{ secrets.GITHUB_TOKEN }}
      - uses: docker/build-push-action@v6
        with:
          context: .
          file: docker/Dockerfile.gpu
          push: true
          tags: ghcr.io/helio-ai/forecast-gpu:${{ github.event.release.tag_name }}
`
	dockerfile := `FROM nvidia/cuda:12.4.1-cudnn-runtime-ubuntu22.04
ENV PIP_NO_CACHE_DIR=1 PYTHONDONTWRITEBYTECODE=1
RUN apt-get update && apt-get install -y --no-install-recommends python3.11 python3-pip && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY requirements.txt .
RUN python3.11 -m pip install -r requirements.txt
COPY forecast/ forecast/
ENTRYPOINT ["python3.11", "-m", "forecast.serve"]
`
	head := func(c *rsCtx) []string {
		return []string{"#0 building with \"builder-" + c.hex(8) + "\" instance using docker-container driver", "",
			"#1 [internal] load build definition from Dockerfile.gpu", "#1 transferring dockerfile: 478B done", "#1 DONE 0.0s", "",
			"#2 [internal] load metadata for docker.io/nvidia/cuda:12.4.1-cudnn-runtime-ubuntu22.04", fmt.Sprintf("#2 DONE %ss", c.secs(0.5, 1.5, 1)), "",
			"#3 [1/6] FROM docker.io/nvidia/cuda:12.4.1-cudnn-runtime-ubuntu22.04@sha256:" + c.hex(64),
			fmt.Sprintf("#3 sha256:%s 2.26GB / 2.26GB %ss done", c.hex(64), c.secs(20, 40, 1)),
			fmt.Sprintf("#3 extracting sha256:%s %ss done", c.hex(64), c.secs(40, 70, 1)), fmt.Sprintf("#3 DONE %ss", c.secs(80, 120, 1)), "",
			"#6 [4/6] RUN python3.11 -m pip install -r requirements.txt",
			fmt.Sprintf("#6 %s Collecting torch==2.5.1 (from -r requirements.txt (line 1))", c.secs(1, 2, 3)),
			fmt.Sprintf("#6 %s   Downloading torch-2.5.1-cp311-cp311-manylinux1_x86_64.whl (906.4 MB)", c.secs(2, 3, 3)),
			fmt.Sprintf("#6 %s Collecting nvidia-cudnn-cu12==9.1.0.70 (from torch==2.5.1)", c.secs(30, 50, 3))}
	}
	ok := func(c *rsCtx) []string {
		return append(head(c), fmt.Sprintf("#6 %s Successfully installed torch-2.5.1 triton-3.1.0 numpy-2.1.3 pandas-2.2.3 statsforecast-1.7.8", c.secs(150, 200, 3)),
			fmt.Sprintf("#6 DONE %ss", c.secs(200, 260, 1)), "", "#8 exporting to docker image format", "#8 exporting layers", fmt.Sprintf("#8 exporting layers %ss done", c.secs(60, 90, 1)),
			"#8 sending tarball", fmt.Sprintf("#8 sending tarball %ss done", c.secs(50, 80, 1)), "#8 DONE "+c.secs(120, 170, 1)+"s")
	}
	full := func(c *rsCtx) []string {
		out := head(c)
		var tail []string
		if c.rng.IntN(2) == 0 {
			t := c.secs(120, 170, 3)
			tail = []string{t + " ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device"}
			out = append(out, fmt.Sprintf("#6 %s Installing collected packages: nvidia-cudnn-cu12, nvidia-cublas-cu12, torch", c.secs(100, 110, 3)))
			for _, l := range tail {
				out = append(out, "#6 "+l)
			}
			out = append(out, `#6 ERROR: process "/bin/sh -c python3.11 -m pip install -r requirements.txt" did not complete successfully: exit code: 1`,
				"------", " > [4/6] RUN python3.11 -m pip install -r requirements.txt:")
			out = append(out, tail...)
			return append(out, "------", "Dockerfile.gpu:6", "--------------------", "   5 |     COPY requirements.txt .",
				"   6 | >>> RUN python3.11 -m pip install -r requirements.txt", "   7 |     COPY forecast/ forecast/", "--------------------",
				`ERROR: failed to solve: process "/bin/sh -c python3.11 -m pip install -r requirements.txt" did not complete successfully: exit code: 1`)
		}
		out = append(out, fmt.Sprintf("#6 %s Successfully installed torch-2.5.1 triton-3.1.0 numpy-2.1.3 pandas-2.2.3 statsforecast-1.7.8", c.secs(150, 200, 3)),
			fmt.Sprintf("#6 DONE %ss", c.secs(200, 260, 1)), "", "#8 exporting to docker image format", "#8 exporting layers")
		return append(out, fmt.Sprintf("#8 exporting layers %ss done", c.secs(60, 90, 1)), "#8 sending tarball",
			fmt.Sprintf("#8 ERROR: write /var/lib/docker/tmp/docker-import-%d: no space left on device", c.n(100000000, 999999999)),
			"------", " > exporting to docker image format:", "------",
			fmt.Sprintf("ERROR: failed to solve: write /var/lib/docker/tmp/docker-import-%d: no space left on device", c.n(100000000, 999999999)))
	}
	checkoutFail := func(c *rsCtx) []string {
		out := []string{"Syncing repository: helio-ai/forecast", "##[group]Getting Git version info", "Working directory is '" + c.ws + "'", "[command]/usr/bin/git version", "git version 2.47.0", "##[endgroup]",
			"##[group]Fetching the repository"}
		for k := 0; k < 3; k++ {
			out = append(out, fmt.Sprintf("[command]/usr/bin/git -c protocol.version=2 fetch --no-tags --prune --no-recurse-submodules --depth=1 origin +%s:refs/remotes/origin/main", c.r.sha),
				"remote: Internal Server Error", "fatal: unable to access 'https://github.com/helio-ai/forecast/': The requested URL returned error: 500")
			if k < 2 {
				out = append(out, "The process '/usr/bin/git' failed with exit code 128", fmt.Sprintf("Waiting %d seconds before trying again", c.n(10, 20)))
			}
		}
		return append(out, "##[error]The process '/usr/bin/git' failed with exit code 128")
	}
	return &rsScenario{
		name: "rs-python-cuda-image-disk-full", repo: "helio-ai/forecast", repoID: 713370551, workflow: "Image",
		path: ".github/workflows/image.yml", wfID: 88013402, jobName: "build-image", runner: rsRunner{labels: []string{"ubuntu-22.04"}},
		steps: []rsStep{checkout(),
			{uses: "docker/setup-buildx-action@v3", post: true, secs: [2]int{4, 9}, out: func(c *rsCtx) []string {
				return []string{"##[group]Booting builder", "#1 [internal] booting buildkit", "#1 DONE " + c.secs(4, 8, 1) + "s", "##[endgroup]"}
			}},
			{name: "Build image", run: []string{"docker buildx build --load -t forecast-gpu:ci -f docker/Dockerfile.gpu ."}, secs: [2]int{420, 600}, out: ok},
			{name: "Smoke test", run: []string{"docker run --rm forecast-gpu:ci python -m forecast.selftest"}, secs: [2]int{10, 20}, out: func(c *rsCtx) []string {
				return []string{"selftest: torch 2.5.1, cuda available: False (cpu fallback)", "selftest: model registry ok (4 models)", "selftest: passed"}
			}},
		},
		files: map[string]string{".github/workflows/image.yml": workflow, ".github/workflows/publish.yml": publish, "docker/Dockerfile.gpu": dockerfile,
			"requirements.txt": "torch==2.5.1\nnumpy==2.1.3\npandas==2.2.3\nstatsforecast==1.7.8\n", ".dockerignore": ".git\nnotebooks/\ndata/\n"},
		history: "...D....p...C....D..q...D.....p..D...C..x....D....p...D",
		failures: map[byte]rsFailure{
			'D': {step: "Build image", exit: 1, secs: [2]int{300, 500}, out: full},
			'C': {step: "Run actions/checkout@v4", secs: [2]int{40, 70}, out: checkoutFail},
		},
		prBranches: []string{"feat/holiday-regressors", "chore/torch-2.5"}, prFail: 'D',
		authors:  []string{"arun-k", "jmeier", "tali"},
		messages: []string{"Add holiday regressors", "Bump torch to 2.5.1", "Serve: batch predictions", "Selftest: cpu fallback", "Docs: model cards"},
		start:    time.Date(2026, 9, 25, 6, 0, 0, 0, time.UTC),
		expect: rsExpect{verdict: "flaky", mechanism: "resource-exhaustion", cause: "o space left on device",
			producer: &rsAnchor{file: ".github/workflows/image.yml", from: "name: Build image", to: "run: docker buildx build"},
			patch:    true, patchFiles: []string{".github/workflows/image.yml"}, ciOnly: &rsTrue, pattern: "intermittent"},
	}
}

// rsPlaywrightFlake: a Next.js storefront whose Playwright suite has one test
// that races the price recalculation after a promo code; Playwright runs
// with no retries in CI. Browser downloads fail now and then in another
// step.
func rsPlaywrightFlake() *rsScenario {
	workflow := `name: E2E

on:
  push:
    branches: [main]
  pull_request:

jobs:
  playwright:
    runs-on: ubuntu-latest
    timeout-minutes: 30
    steps:
      - uses: actions/checkout@v4
      - uses: pnpm/action-setup@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
          cache: pnpm
      - name: Install dependencies
        run: pnpm install --frozen-lockfile
      - name: Install Playwright browsers
        run: pnpm exec playwright install --with-deps chromium
      - name: Build
        run: pnpm build
      - name: Run Playwright tests
        run: pnpm exec playwright test --project=chromium
      - uses: actions/upload-artifact@v4
        if: ${{ !cancelled() }}
        with:
          name: playwright-report
          path: playwright-report/
          retention-days: 14
`
	config := `import { defineConfig, devices } from '@playwright/test';

export default defineConfig({
  testDir: './tests',
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  retries: 0,
  workers: process.env.CI ? 2 : undefined,
  reporter: [['list'], ['html', { open: 'never' }]],
  use: {
    baseURL: 'http://127.0.0.1:3000',
    trace: 'on-first-retry',
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'] } }],
  webServer: {
    command: 'pnpm start',
    url: 'http://127.0.0.1:3000',
    reuseExistingServer: !process.env.CI,
  },
});
`
	specs := []string{"tests/home.spec.ts:5:7 › home › shows featured collections", "tests/search.spec.ts:12:7 › search › filters by size",
		"tests/cart.spec.ts:18:7 › cart › adds an item from the product page", "tests/cart.spec.ts:42:7 › cart › applies a promo code before checkout",
		"tests/checkout.spec.ts:9:7 › checkout › pays with a saved card", "tests/account.spec.ts:14:7 › account › shows past orders"}
	run := func(c *rsCtx, fail bool) []string {
		out := []string{"", "Running 38 tests using 2 workers", ""}
		for k, sp := range specs {
			mark := "  ✓  "
			if fail && k == 3 {
				mark = "  ✘  "
			}
			out = append(out, fmt.Sprintf("%s%d [chromium] › %s (%s)", mark, k+1, sp, c.pick(fmt.Sprintf("%dms", c.n(400, 990)), fmt.Sprintf("%ss", c.secs(1, 6, 1)))))
		}
		if !fail {
			return append(out, "", fmt.Sprintf("  38 passed (%ss)", c.secs(40, 70, 1)))
		}
		total := c.pick("$47.00", "$46.99")
		return append(out, "", "",
			"  1) [chromium] › tests/cart.spec.ts:42:7 › cart › applies a promo code before checkout ─────────────────", "",
			"    Error: Timed out 5000ms waiting for expect(locator).toHaveText(expected)", "",
			"    Locator: getByTestId('order-total')", "    Expected string: \"$42.30\"", "    Received string: \""+total+"\"",
			"    Call log:", "      - expect.toHaveText with timeout 5000ms", "      - waiting for getByTestId('order-total')",
			fmt.Sprintf("      %d × locator resolved to <span data-testid=\"order-total\">%s</span>", c.n(8, 10), total),
			"        - unexpected value \""+total+"\"", "",
			"      53 |     await page.getByRole('button', { name: 'Apply' }).click();",
			"    > 54 |     await expect(page.getByTestId('order-total')).toHaveText('$42.30');",
			"         |                                                    ^",
			"        at "+c.ws+"/tests/cart.spec.ts:54:52", "",
			"  1 failed", "    [chromium] › tests/cart.spec.ts:42:7 › cart › applies a promo code before checkout ──────────────────",
			fmt.Sprintf("  37 passed (%ss)", c.secs(40, 70, 1)))
	}
	browsers := func(c *rsCtx, fail bool) []string {
		out := []string{"Installing dependencies...", "Switching to root user to install dependencies...",
			"Reading package lists...", "fonts-liberation is already the newest version (1:1.07.4-11).",
			"Downloading Chromium 131.0.6778.33 (playwright build v1148) from https://playwright.azureedge.net/builds/chromium/1148/chromium-linux.zip"}
		if !fail {
			return append(out, "|■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■| 100% of 164.7 MiB",
				"Chromium 131.0.6778.33 (playwright build v1148) downloaded to /home/runner/.cache/ms-playwright/chromium-1148")
		}
		return append(out, fmt.Sprintf("|■■■■■■■■■■■■■■■■■■■■■■■■                                                        |  %d%% of 164.7 MiB", c.n(25, 45)),
			"Error: Download failed: server closed connection. URL: https://playwright.azureedge.net/builds/chromium/1148/chromium-linux.zip",
			"Failed to install browsers", "Error: Failed to download Chromium 131.0.6778.33 (playwright build v1148), caused by",
			"Error: Download failure, code=1", "    at ChildProcess.<anonymous> (/home/runner/work/storefront/storefront/node_modules/.pnpm/playwright-core@1.49.0/node_modules/playwright-core/lib/server/registry/browserFetcher.js:91:32)")
	}
	return &rsScenario{
		name: "rs-ts-playwright-flake", repo: "ferngrove/storefront", repoID: 689211730, workflow: "E2E",
		path: ".github/workflows/e2e.yml", wfID: 80341155, jobName: "playwright", runner: rsRunner{labels: []string{"ubuntu-latest"}},
		steps: []rsStep{checkout(),
			{uses: "pnpm/action-setup@v4", post: true, secs: [2]int{1, 3}, out: func(*rsCtx) []string { return []string{"Installation Completed!"} }},
			{uses: "actions/setup-node@v4", with: []string{"node-version: 20", "cache: pnpm"}, post: true, secs: [2]int{3, 8}, out: func(*rsCtx) []string {
				return []string{"Found in cache @ /opt/hostedtoolcache/node/20.18.0/x64", "Cache restored successfully"}
			}},
			{name: "Install dependencies", run: []string{"pnpm install --frozen-lockfile"}, secs: [2]int{10, 25}, out: func(c *rsCtx) []string {
				return []string{"Lockfile is up to date, resolution step is skipped", fmt.Sprintf("Done in %ss", c.secs(8, 20, 1))}
			}},
			{name: "Install Playwright browsers", run: []string{"pnpm exec playwright install --with-deps chromium"}, secs: [2]int{30, 60}, out: func(c *rsCtx) []string { return browsers(c, false) }},
			{name: "Build", run: []string{"pnpm build"}, secs: [2]int{60, 110}, out: func(c *rsCtx) []string {
				return []string{"   ▲ Next.js 15.0.3", "   Creating an optimized production build ...", " ✓ Compiled successfully", " ✓ Generating static pages (24/24)"}
			}},
			{name: "Run Playwright tests", run: []string{"pnpm exec playwright test --project=chromium"}, secs: [2]int{60, 90}, out: func(c *rsCtx) []string { return run(c, false) }},
			{uses: "actions/upload-artifact@v4", with: []string{"name: playwright-report", "path: playwright-report/", "retention-days: 14"}, always: true, secs: [2]int{2, 4},
				out: func(c *rsCtx) []string {
					return []string{"With the provided path, there will be 7 files uploaded", fmt.Sprintf("Artifact playwright-report.zip successfully finalized. Artifact ID %d", c.n(2_000_000_000, 2_100_000_000))}
				}},
		},
		files: map[string]string{".github/workflows/e2e.yml": workflow, "playwright.config.ts": config,
			"package.json": "{\n  \"name\": \"storefront\",\n  \"private\": true,\n  \"scripts\": {\n    \"build\": \"next build\",\n    \"start\": \"next start -p 3000\",\n    \"lint\": \"next lint\"\n  }\n}\n",
			"Dockerfile":   "FROM node:20-alpine AS build\nWORKDIR /app\nRUN corepack enable\nCOPY . .\nRUN pnpm install --frozen-lockfile && pnpm build\n\nFROM node:20-alpine\nWORKDIR /app\nCOPY --from=build /app/.next/standalone ./\nCOPY --from=build /app/.next/static ./.next/static\nCOPY --from=build /app/public ./public\nCMD [\"node\", \"server.js\"]\n"},
		history: "...p..E.....p...E..I...q...E.....p.r...E...x...p..I...E...p..E",
		failures: map[byte]rsFailure{
			'E': {step: "Run Playwright tests", exit: 1, secs: [2]int{60, 90}, out: func(c *rsCtx) []string { return run(c, true) }},
			'I': {step: "Install Playwright browsers", exit: 1, secs: [2]int{20, 50}, out: func(c *rsCtx) []string { return browsers(c, true) }},
		},
		prBranches: []string{"feat/gift-cards", "fix/promo-rounding"}, prFail: 'E', rerunFail: 'E',
		authors:  []string{"ngozi-a", "pbrandt", "lu-chen"},
		messages: []string{"Gift cards at checkout", "Fix promo rounding", "Search: size facets", "Upgrade Next.js to 15.0.3", "Account: order history"},
		start:    time.Date(2026, 10, 12, 7, 0, 0, 0, time.UTC),
		expect: rsExpect{verdict: "flaky", mechanism: "test-failure", cause: "toHaveText",
			producer: &rsAnchor{file: ".github/workflows/e2e.yml", from: "name: Run Playwright tests", to: "run: pnpm exec playwright test"},
			patch:    true, patchFilesAny: []string{".github/workflows/e2e.yml", "playwright.config.ts"}, ciOnly: &rsTrue, pattern: "intermittent"},
	}
}

// rsGradleOOM: an Android banking app whose release build shrinks with R8;
// the Gradle daemon's heap is capped at 1.5 GB in gradle.properties and R8
// exhausts it on some runs.
func rsGradleOOM() *rsScenario {
	workflow := `name: Android CI

on:
  push:
    branches: [main]
  pull_request:

jobs:
  assemble:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-java@v4
        with:
          distribution: zulu
          java-version: '17'
      - uses: gradle/actions/setup-gradle@v4
      - name: Lint
        run: ./gradlew lintDebug
      - name: Unit tests
        run: ./gradlew testDebugUnitTest
      - name: Assemble release
        run: ./gradlew assembleRelease
`
	release := `name: Play Store

on:
  push:
    tags: ['v*']

jobs:
  bundle:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-java@v4
        with:
          distribution: zulu
          java-version: '17'
      - uses: gradle/actions/setup-gradle@v4
      - run: ./gradlew bundleRelease
      - uses: r0adkll/upload-google-play@v1
        with:
          serviceAccountJsonPlainText: ${{ secrets.PLAY_SERVICE_ACCOUNT }}
          packageName: app.pocketbank.android
          releaseFiles: app/build/outputs/bundle/release/app-release.aab
          track: internal
`
	props := "org.gradle.jvmargs=-Xmx1536m -Dfile.encoding=UTF-8\norg.gradle.parallel=true\norg.gradle.caching=true\nandroid.useAndroidX=true\nandroid.nonTransitiveRClass=true\nkotlin.code.style=official\n"
	tasks := func(c *rsCtx, names ...string) []string {
		out := []string{"Starting a Gradle Daemon (subsequent builds will be faster)"}
		for _, n := range names {
			out = append(out, "> Task "+n)
		}
		return out
	}
	assembleOK := func(c *rsCtx) []string {
		return append(tasks(c, ":app:preBuild UP-TO-DATE", ":app:compileReleaseKotlin", ":app:compileReleaseJavaWithJavac", ":app:minifyReleaseWithR8", ":app:packageRelease", ":app:assembleRelease"),
			"", fmt.Sprintf("BUILD SUCCESSFUL in %dm %ds", c.n(5, 7), c.n(0, 59)), fmt.Sprintf("%d actionable tasks: %d executed, %d from cache", c.n(70, 80), c.n(30, 50), c.n(20, 40)))
	}
	oom := func(c *rsCtx) []string {
		out := tasks(c, ":app:preBuild UP-TO-DATE", ":app:compileReleaseKotlin", ":app:compileReleaseJavaWithJavac")
		out = append(out, "> Task :app:minifyReleaseWithR8")
		if c.rng.IntN(2) == 0 {
			out = append(out, "Expiring Daemon because JVM heap space is exhausted", "Daemon will be stopped at the end of the build after running out of JVM memory",
				"Expiring Daemon because JVM heap space is exhausted")
		}
		return append(out, "> Task :app:minifyReleaseWithR8 FAILED", "",
			"FAILURE: Build failed with an exception.", "",
			"* What went wrong:", "Execution failed for task ':app:minifyReleaseWithR8'.",
			"> A failure occurred while executing com.android.build.gradle.internal.tasks.R8Task$R8RunnableImpl",
			"   > Java heap space", "", "* Try:", "> Run with --stacktrace option to get the stack trace.",
			"> Run with --info or --debug option to get more log output.", "> Run with --scan to get full insights.",
			"> Get more help at https://help.gradle.org.", "",
			fmt.Sprintf("BUILD FAILED in %dm %ds", c.n(4, 6), c.n(0, 59)), fmt.Sprintf("%d actionable tasks: %d executed, %d from cache", c.n(60, 70), c.n(30, 40), c.n(20, 30)))
	}
	unitFail := func(c *rsCtx) []string {
		return append(tasks(c, ":app:compileDebugUnitTestKotlin", ":app:testDebugUnitTest"),
			"", "TransferViewModelTest > submitsTransferOnce() FAILED",
			"    java.lang.AssertionError: expected:<1> but was:<2>",
			"        at org.junit.Assert.fail(Assert.java:89)",
			"        at app.pocketbank.transfer.TransferViewModelTest.submitsTransferOnce(TransferViewModelTest.kt:71)", "",
			"214 tests completed, 1 failed", "", "> Task :app:testDebugUnitTest FAILED", "",
			"FAILURE: Build failed with an exception.", "", "* What went wrong:", "Execution failed for task ':app:testDebugUnitTest'.",
			"> There were failing tests. See the report at: file://"+c.ws+"/app/build/reports/tests/testDebugUnitTest/index.html", "",
			fmt.Sprintf("BUILD FAILED in %dm %ds", c.n(1, 2), c.n(0, 59)))
	}
	return &rsScenario{
		name: "rs-android-gradle-r8-oom", repo: "orbit-mobile/pocketbank-android", repoID: 602284519, workflow: "Android CI",
		path: ".github/workflows/android.yml", wfID: 66120877, jobName: "assemble", runner: rsRunner{labels: []string{"ubuntu-latest"}},
		steps: []rsStep{checkout(),
			{uses: "actions/setup-java@v4", with: []string{"distribution: zulu", "java-version: 17", "java-package: jdk"}, post: true, secs: [2]int{2, 6},
				out: func(*rsCtx) []string { return []string{"Java 17.0.13+11 was found in the local cache"} }},
			{uses: "gradle/actions/setup-gradle@v4", post: true, secs: [2]int{5, 15}, out: func(c *rsCtx) []string {
				return []string{"Restore Gradle state from cache", "Restored Gradle User Home from cache key: gradle-home-v1|Linux|assemble[" + c.hex(32) + "]-" + c.hex(40)}
			}},
			{name: "Lint", run: []string{"./gradlew lintDebug"}, secs: [2]int{90, 150}, out: func(c *rsCtx) []string {
				return append(tasks(c, ":app:lintAnalyzeDebug", ":app:lintReportDebug", ":app:lintDebug"), "", fmt.Sprintf("BUILD SUCCESSFUL in %dm %ds", c.n(1, 2), c.n(0, 59)))
			}},
			{name: "Unit tests", run: []string{"./gradlew testDebugUnitTest"}, secs: [2]int{60, 120}, out: func(c *rsCtx) []string {
				return append(tasks(c, ":app:compileDebugUnitTestKotlin", ":app:testDebugUnitTest"), "", fmt.Sprintf("BUILD SUCCESSFUL in %dm %ds", c.n(1, 2), c.n(0, 59)))
			}},
			{name: "Assemble release", run: []string{"./gradlew assembleRelease"}, secs: [2]int{300, 420}, out: assembleOK},
		},
		files: map[string]string{".github/workflows/android.yml": workflow, ".github/workflows/play-store.yml": release, "gradle.properties": props,
			"settings.gradle.kts": "rootProject.name = \"pocketbank\"\ninclude(\":app\")\n"},
		history: "....O...p....O..U....q..O....p...O...O..p.x....U..O....p...O",
		failures: map[byte]rsFailure{
			'O': {step: "Assemble release", exit: 1, secs: [2]int{240, 360}, out: oom},
			'U': {step: "Unit tests", exit: 1, secs: [2]int{60, 100}, out: unitFail},
		},
		prBranches: []string{"feature/instant-transfers", "chore/agp-8.7"}, prFail: 'U',
		authors:  []string{"e-rossi", "kwame-o", "jana-s"},
		messages: []string{"Instant transfers screen", "Bump AGP to 8.7.2", "Cards: freeze toggle", "Fix double submit on transfer", "Compose BOM 2024.11"},
		start:    time.Date(2026, 9, 18, 8, 0, 0, 0, time.UTC),
		expect: rsExpect{verdict: "flaky", mechanism: "resource-exhaustion", cause: "Java heap space",
			producer: &rsAnchor{file: "gradle.properties", from: "org.gradle.jvmargs"},
			// gradle.properties is read by the Play Store release build too: the
			// heap does not change the app, but the file can (R8 and AndroidX
			// flags), so the change is reviewed as a production change.
			patch: true, patchFilesAny: []string{"gradle.properties", ".github/workflows/android.yml"}, ciOnly: &rsFalse, affected: "Google Play", pattern: "intermittent"},
	}
}
