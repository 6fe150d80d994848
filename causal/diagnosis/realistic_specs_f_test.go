package diagnosis

import (
	"fmt"
	"strings"
	"time"
)

// rsAptDockerfile: a C++ raster daemon whose CI builds the release image.
// The image's build stage installs its toolchain with apt in one RUN, and
// Debian's CDN answers 503 or serves a half-synced index now and then. A
// separate step installs the same libraries on the runner with apt, and
// Ubuntu's Azure mirror drops a connection there too: a different step, so
// a different class.
func rsAptDockerfile() *rsScenario {
	workflow := `name: CI

on:
  push:
    branches: [main]
  pull_request:

jobs:
  build:
    runs-on: ubuntu-24.04
    steps:
      - uses: actions/checkout@v4

      - name: Install system packages
        run: |
          sudo apt-get update
          sudo apt-get install -y --no-install-recommends ninja-build libgdal-dev libtiff-dev

      - name: Configure
        run: cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release

      - name: Build
        run: cmake --build build -j 4

      - name: Unit tests
        run: ctest --test-dir build --output-on-failure

      - name: Build image
        run: docker build -t rasterd:ci .
`
	release := `name: Release

on:
  push:
    tags: ['v*']

permissions:
  contents: read
  packages: write

jobs:
  image:
    runs-on: ubuntu-24.04
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
          push: true
          tags: ghcr.io/vectorforge/rasterd:${{ github.ref_name }}
`
	dockerfile := `FROM debian:bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends build-essential cmake ninja-build libgdal-dev libtiff-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY CMakeLists.txt ./
COPY src/ src/
RUN cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build build

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends libgdal32 libtiff6 ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/build/rasterd /usr/local/bin/rasterd
EXPOSE 8600
ENTRYPOINT ["rasterd", "--listen", ":8600"]
`
	cmake := "cmake_minimum_required(VERSION 3.25)\nproject(rasterd CXX)\nset(CMAKE_CXX_STANDARD 20)\nfind_package(GDAL REQUIRED)\nadd_executable(rasterd src/main.cpp src/tiles.cpp src/server.cpp)\ntarget_link_libraries(rasterd PRIVATE GDAL::GDAL)\nenable_testing()\n"
	const runApt = "apt-get update  && apt-get install -y --no-install-recommends build-essential cmake ninja-build libgdal-dev libtiff-dev  && rm -rf /var/lib/apt/lists/*"
	mirror := func(c *rsCtx) string {
		return c.pick("151.101.2.132", "151.101.130.132", "151.101.66.132", "146.75.118.132")
	}
	buildHead := func(c *rsCtx) []string {
		return []string{"#0 building with \"default\" instance using docker driver", "",
			"#1 [internal] load build definition from Dockerfile", "#1 transferring dockerfile: 691B done", "#1 DONE 0.0s", "",
			"#2 [internal] load metadata for docker.io/library/debian:bookworm-slim", fmt.Sprintf("#2 DONE %ss", c.secs(0.3, 1.4, 1)), "",
			"#3 [internal] load .dockerignore", "#3 transferring context: 2B done", "#3 DONE 0.0s", "",
			"#4 [build 1/6] FROM docker.io/library/debian:bookworm-slim@sha256:" + c.hex(64),
			fmt.Sprintf("#4 DONE %ss", c.secs(1.5, 4, 1)), "",
			"#5 [internal] load build context", fmt.Sprintf("#5 transferring context: %d.%02dkB done", c.n(180, 260), c.n(0, 99)), "#5 DONE 0.0s", "",
			"#6 [build 2/6] RUN " + runApt,
			fmt.Sprintf("#6 %s Get:1 http://deb.debian.org/debian bookworm InRelease [151 kB]", c.secs(0.2, 0.6, 3)),
			fmt.Sprintf("#6 %s Get:2 http://deb.debian.org/debian bookworm-updates InRelease [55.4 kB]", c.secs(0.6, 0.8, 3)),
			fmt.Sprintf("#6 %s Get:3 http://deb.debian.org/debian-security bookworm-security InRelease [48.0 kB]", c.secs(0.8, 0.9, 3))}
	}
	buildOK := func(c *rsCtx) []string {
		out := append(buildHead(c), fmt.Sprintf("#6 %s Get:4 http://deb.debian.org/debian bookworm/main amd64 Packages [8789 kB]", c.secs(0.9, 1.1, 3)),
			fmt.Sprintf("#6 %s Fetched 9141 kB in 2s (%d kB/s)", c.secs(2, 2.5, 3), c.n(3800, 5200)),
			fmt.Sprintf("#6 %s Need to get 142 MB of archives.", c.secs(3.8, 4.2, 3)),
			fmt.Sprintf("#6 DONE %ss", c.secs(48, 70, 1)), "",
			"#7 [build 3/6] WORKDIR /src", "#7 DONE 0.0s", "",
			"#8 [build 4/6] COPY CMakeLists.txt ./", "#8 DONE 0.0s", "",
			"#9 [build 6/6] RUN cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build build",
			fmt.Sprintf("#9 %s [4/4] Linking CXX executable rasterd", c.secs(40, 60, 2)), fmt.Sprintf("#9 DONE %ss", c.secs(60, 80, 1)), "",
			"#12 exporting to image", "#12 exporting layers", "#12 writing image sha256:"+c.hex(64)+" done", "#12 naming to docker.io/library/rasterd:ci done", "#12 DONE 2.3s")
		return out
	}
	// aptFails is the build stage's apt call failing: a 503 on a package, or
	// an index that does not match its Release file.
	aptFails := func(c *rsCtx) []string {
		ip := mirror(c)
		out := buildHead(c)
		var tail []string
		if c.rng.IntN(2) == 0 {
			t := c.secs(20, 40, 3)
			out = append(out, fmt.Sprintf("#6 %s Get:4 http://deb.debian.org/debian bookworm/main amd64 Packages [8789 kB]", c.secs(0.9, 1.1, 3)),
				fmt.Sprintf("#6 %s Fetched 9141 kB in 2s (%d kB/s)", c.secs(2, 2.5, 3), c.n(3800, 5200)),
				fmt.Sprintf("#6 %s Need to get 142 MB of archives.", c.secs(3.8, 4.2, 3)))
			tail = []string{fmt.Sprintf("%s Err:%d http://deb.debian.org/debian bookworm/main amd64 libgdal32 amd64 3.6.2+dfsg-1+b2", t, c.n(60, 110)),
				fmt.Sprintf("%s   503  Service Unavailable [IP: %s 80]", t, ip),
				fmt.Sprintf("%s E: Failed to fetch http://deb.debian.org/debian/pool/main/g/gdal/libgdal32_3.6.2%%2bdfsg-1%%2bb2_amd64.deb  503  Service Unavailable [IP: %s 80]", t, ip),
				fmt.Sprintf("%s E: Unable to fetch some archives, maybe run apt-get update or try with --fix-missing?", t)}
		} else {
			t := c.secs(1.2, 2.4, 3)
			tail = []string{fmt.Sprintf("%s Err:4 http://deb.debian.org/debian bookworm/main amd64 Packages", t),
				fmt.Sprintf("%s   Hash Sum mismatch", t),
				fmt.Sprintf("%s   Hashes of expected file:", t),
				fmt.Sprintf("%s    - SHA256:%s", t, c.hex(64)),
				fmt.Sprintf("%s E: Failed to fetch http://deb.debian.org/debian/dists/bookworm/main/binary-amd64/Packages.xz  Hash Sum mismatch", t),
				fmt.Sprintf("%s E: Some index files failed to download. They have been ignored, or old ones used instead.", t)}
		}
		for _, l := range tail {
			out = append(out, "#6 "+l)
		}
		out = append(out, fmt.Sprintf(`#6 ERROR: process "/bin/sh -c %s" did not complete successfully: exit code: 100`, runApt), "------",
			" > [build 2/6] RUN "+runApt+":")
		out = append(out, tail[len(tail)-2:]...)
		return append(out, "------", "Dockerfile:2", "--------------------", "   1 |     FROM debian:bookworm-slim AS build",
			"   2 | >>> RUN apt-get update \\",
			"   3 | >>>  && apt-get install -y --no-install-recommends build-essential cmake ninja-build libgdal-dev libtiff-dev \\",
			"   4 | >>>  && rm -rf /var/lib/apt/lists/*", "   5 |     WORKDIR /src", "--------------------",
			fmt.Sprintf(`ERROR: failed to solve: process "/bin/sh -c %s" did not complete successfully: exit code: 100`, runApt))
	}
	hostApt := func(c *rsCtx, fail bool) []string {
		out := []string{"Hit:1 http://azure.archive.ubuntu.com/ubuntu noble InRelease",
			"Get:2 http://azure.archive.ubuntu.com/ubuntu noble-updates InRelease [126 kB]",
			fmt.Sprintf("Fetched %d kB in 1s (%d kB/s)", c.n(900, 2400), c.n(900, 2400)), "Reading package lists...",
			"Reading package lists...", "Building dependency tree...", "Reading state information...",
			"The following NEW packages will be installed:", "  libgdal-dev libgdal34t64 libtiff-dev ninja-build",
			fmt.Sprintf("Need to get %d.%d MB of archives.", c.n(38, 41), c.n(0, 9))}
		if !fail {
			return append(out, "Setting up libgdal-dev (3.8.4+dfsg-3ubuntu3) ...", "Processing triggers for libc-bin (2.39-0ubuntu8.3) ...")
		}
		ip := c.pick("52.252.75.106", "52.147.219.192", "40.81.13.82")
		return append(out, "Err:14 http://azure.archive.ubuntu.com/ubuntu noble-updates/universe amd64 libgdal34t64 amd64 3.8.4+dfsg-3ubuntu3",
			"  Connection failed [IP: "+ip+" 80]",
			"E: Failed to fetch http://azure.archive.ubuntu.com/ubuntu/pool/universe/g/gdal/libgdal34t64_3.8.4%2bdfsg-3ubuntu3_amd64.deb  Connection failed [IP: "+ip+" 80]",
			"E: Unable to fetch some archives, maybe run apt-get update or try with --fix-missing?")
	}
	tests := []string{"tile_math", "tile_cache", "projection", "geotiff_reader", "png_encoder", "webp_encoder", "http_router", "server_concurrency"}
	ctest := func(c *rsCtx, fail bool) []string {
		out := []string{"Test project " + c.ws + "/build"}
		for i, name := range tests {
			verdict := "   Passed"
			if fail && name == "server_concurrency" {
				verdict = "***Failed"
			}
			out = append(out, fmt.Sprintf("      Start %2d: %s", i+1, name),
				fmt.Sprintf("%d/%d Test #%d: %s %s %s    %s sec", i+1, len(tests), i+1, name, strings.Repeat(".", 32-len(name)), verdict, c.secs(0.01, 2.5, 2)))
		}
		if !fail {
			return append(out, "", "100% tests passed, 0 tests failed out of 8", "", "Total Test time (real) =  "+c.secs(6, 9, 2)+" sec")
		}
		return append(out, "", "88% tests passed, 1 tests failed out of 8", "", "Total Test time (real) =  "+c.secs(6, 9, 2)+" sec", "",
			"The following tests FAILED:", "\t  8 - server_concurrency (Failed)", "Errors while running CTest")
	}
	return &rsScenario{
		name: "rs-cpp-apt-mirror-dockerfile", repo: "vectorforge/rasterd", repoID: 655310872, workflow: "CI",
		path: ".github/workflows/ci.yml", wfID: 77120934, jobName: "build", runner: rsRunner{labels: []string{"ubuntu-24.04"}},
		steps: []rsStep{checkout(),
			{name: "Install system packages", run: []string{"sudo apt-get update", "sudo apt-get install -y --no-install-recommends ninja-build libgdal-dev libtiff-dev"},
				secs: [2]int{20, 45}, out: func(c *rsCtx) []string { return hostApt(c, false) }},
			{name: "Configure", run: []string{"cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release"}, secs: [2]int{2, 5}, out: func(c *rsCtx) []string {
				return []string{"-- The CXX compiler identification is GNU 13.2.0", "-- Found GDAL: /usr/lib/x86_64-linux-gnu/libgdal.so (found version \"3.8.4\")",
					"-- Configuring done (" + c.secs(1, 3, 1) + "s)", "-- Generating done (0.0s)", "-- Build files have been written to: " + c.ws + "/build"}
			}},
			{name: "Build", run: []string{"cmake --build build -j 4"}, secs: [2]int{50, 90}, out: func(c *rsCtx) []string {
				return []string{"[1/4] Building CXX object CMakeFiles/rasterd.dir/src/tiles.cpp.o", "[2/4] Building CXX object CMakeFiles/rasterd.dir/src/server.cpp.o",
					"[3/4] Building CXX object CMakeFiles/rasterd.dir/src/main.cpp.o", "[4/4] Linking CXX executable rasterd"}
			}},
			{name: "Unit tests", run: []string{"ctest --test-dir build --output-on-failure"}, secs: [2]int{6, 10}, out: func(c *rsCtx) []string { return ctest(c, false) }},
			{name: "Build image", run: []string{"docker build -t rasterd:ci ."}, secs: [2]int{120, 170}, out: buildOK},
		},
		files: map[string]string{".github/workflows/ci.yml": workflow, ".github/workflows/release.yml": release, "Dockerfile": dockerfile,
			".dockerignore": "build/\n.git/\n.github/\n", "CMakeLists.txt": cmake},
		history: "....p...M....W...p..T...q..M......p.r....M..x...W..p....M...T..p..M",
		failures: map[byte]rsFailure{
			'M': {step: "Build image", exit: 1, secs: [2]int{20, 60}, out: aptFails},
			'W': {step: "Install system packages", exit: 100, secs: [2]int{30, 70}, out: func(c *rsCtx) []string { return hostApt(c, true) }},
			'T': {step: "Unit tests", exit: 8, secs: [2]int{6, 10}, out: func(c *rsCtx) []string { return ctest(c, true) }},
		},
		prBranches: []string{"feat/webp-tiles", "fix/antimeridian-bbox"}, prFail: 'T', rerunFail: 'M',
		authors:  []string{"hvoss", "m-ibrahim", "qlin"},
		messages: []string{"tiles: WebP encoder", "server: bounded request queue", "Fix bbox across the antimeridian", "cache: LRU by bytes", "Bump GDAL to 3.6.2"},
		start:    time.Date(2026, 9, 8, 7, 0, 0, 0, time.UTC),
		expect: rsExpect{verdict: "flaky", mechanismAny: []string{"transient-network", "dependency"}, cause: "E: Failed to fetch",
			producer: &rsAnchor{file: "Dockerfile", from: "RUN apt-get update", to: "rm -rf /var/lib/apt/lists/*"},
			patch:    true, patchFiles: []string{"Dockerfile"}, ciOnly: &rsFalse, affected: "ghcr.io/vectorforge/rasterd", pattern: "intermittent"},
	}
}

var rsFalse = false

// rsReleaseNotesRateLimit: a TypeScript UI kit that publishes a canary on
// every main push. Its release-notes script asks GitHub's search API for the
// merged pull requests without a token, so the shared runner address runs
// out of its hourly quota now and then. A TypeScript error broke the build
// for a few runs and was fixed.
func rsReleaseNotesRateLimit() *rsScenario {
	workflow := `name: Canary

on:
  push:
    branches: [main]

concurrency:
  group: canary
  cancel-in-progress: false

jobs:
  canary:
    runs-on: ubuntu-latest
    permissions:
      contents: write
      id-token: write
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0

      - uses: pnpm/action-setup@v4

      - uses: actions/setup-node@v4
        with:
          node-version: 22
          cache: pnpm
          registry-url: https://registry.npmjs.org

      - name: Install
        run: pnpm install --frozen-lockfile

      - name: Build
        run: pnpm -r build

      - name: Release notes
        run: ./scripts/release-notes.sh > RELEASE_NOTES.md

      - name: Publish canary
        run: pnpm -r publish --tag canary --no-git-checks --provenance
        env:
          NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}
`
	notes := `#!/usr/bin/env bash
# Lists the pull requests merged since the last tag, for the canary's notes.
set -euo pipefail

repo="${GITHUB_REPOSITORY:-quartzui/quartz}"
since=$(git describe --tags --abbrev=0)
since_date=$(git log -1 --format=%cI "$since")

resp=$(curl -sS -H "Accept: application/vnd.github+json" \
  "https://api.github.com/search/issues?q=repo:${repo}+is:pr+is:merged+merged:>${since_date}&per_page=100")
if ! jq -e '.items' >/dev/null <<<"$resp"; then
  echo "GitHub API request failed: $(jq -r '.message // "no message"' <<<"$resp")" >&2
  exit 1
fi

echo "## Changes since ${since}"
jq -r '.items[] | "- \(.title) (#\(.number)) @\(.user.login)"' <<<"$resp"
`
	pkgs := []string{"@quartzui/tokens", "@quartzui/core", "@quartzui/react", "@quartzui/icons"}
	build := func(c *rsCtx) []string {
		out := []string{fmt.Sprintf("Scope: %d of 5 workspace projects", len(pkgs))}
		for _, p := range pkgs {
			dir := "packages/" + strings.TrimPrefix(p, "@quartzui/")
			out = append(out, fmt.Sprintf("%s build$ tsup src/index.ts --format esm,cjs --dts", dir),
				fmt.Sprintf("%s build: ESM ⚡️ Build success in %dms", dir, c.n(40, 400)),
				fmt.Sprintf("%s build: DTS ⚡️ Build success in %dms", dir, c.n(900, 2400)), dir+" build: Done")
		}
		return out
	}
	return &rsScenario{
		name: "rs-ts-release-notes-ratelimit", repo: "quartzui/quartz", repoID: 761203345, workflow: "Canary",
		path: ".github/workflows/canary.yml", wfID: 95522013, jobName: "canary", runner: rsRunner{labels: []string{"ubuntu-latest"}},
		steps: []rsStep{
			{uses: "actions/checkout@v4", with: []string{"fetch-depth: 0"}, post: true, secs: [2]int{2, 5}},
			{uses: "pnpm/action-setup@v4", post: true, secs: [2]int{1, 3}, out: func(*rsCtx) []string {
				return []string{"Running self-installer...", "Progress: resolved 1, reused 0, downloaded 1, added 1, done", "Installation Completed!"}
			}},
			{uses: "actions/setup-node@v4", with: []string{"node-version: 22", "cache: pnpm", "registry-url: https://registry.npmjs.org"}, post: true, secs: [2]int{3, 8},
				out: func(c *rsCtx) []string {
					return []string{"Found in cache @ /opt/hostedtoolcache/node/22.11.0/x64", fmt.Sprintf("Cache Size: ~%d MB (%d B)", c.n(140, 180), c.n(140_000_000, 180_000_000)), "Cache restored successfully"}
				}},
			{name: "Install", run: []string{"pnpm install --frozen-lockfile"}, secs: [2]int{8, 20}, out: func(c *rsCtx) []string {
				return []string{"Scope: all 5 workspace projects", "Lockfile is up to date, resolution step is skipped",
					fmt.Sprintf("Progress: resolved %d, reused %d, downloaded 0, added %d, done", c.n(900, 940), c.n(900, 940), c.n(900, 940)),
					fmt.Sprintf("Done in %ss", c.secs(5, 14, 1))}
			}},
			{name: "Build", run: []string{"pnpm -r build"}, secs: [2]int{25, 60}, out: build},
			{name: "Release notes", run: []string{"./scripts/release-notes.sh > RELEASE_NOTES.md"}, secs: [2]int{1, 2}},
			{name: "Publish canary", run: []string{"pnpm -r publish --tag canary --no-git-checks --provenance"}, env: []string{"NODE_AUTH_TOKEN: ***"}, secs: [2]int{15, 30},
				out: func(c *rsCtx) []string {
					var out []string
					for _, p := range pkgs {
						out = append(out, fmt.Sprintf("+ %s@0.%d.0-canary.%s", p, 14, c.r.sha[:7]))
					}
					return append(out, "Provenance statement published to transparency log: https://search.sigstore.dev/?logIndex="+fmt.Sprint(c.n(150_000_000, 160_000_000)))
				}},
		},
		files: map[string]string{".github/workflows/canary.yml": workflow, "scripts/release-notes.sh": notes,
			"package.json":        "{\n  \"name\": \"quartz\",\n  \"private\": true,\n  \"packageManager\": \"pnpm@9.14.2\",\n  \"scripts\": {\n    \"build\": \"pnpm -r build\",\n    \"lint\": \"eslint .\"\n  }\n}\n",
			"pnpm-workspace.yaml": "packages:\n  - packages/*\n"},
		history: "......R.....R...BBB.....R.......x..R....R......R...R",
		failures: map[byte]rsFailure{
			'R': {step: "Release notes", exit: 1, secs: [2]int{1, 2}, out: func(c *rsCtx) []string {
				ip := fmt.Sprintf("%s.%d.%d.%d", c.pick("20", "52", "40", "13"), c.n(0, 255), c.n(0, 255), c.n(1, 254))
				return []string{fmt.Sprintf("GitHub API request failed: API rate limit exceeded for %s. (But here's the good news: Authenticated requests get a higher rate limit. Check out the documentation for more details.)", ip)}
			}},
			'B': {step: "Build", exit: 1, secs: [2]int{20, 40}, out: func(c *rsCtx) []string {
				return []string{"Scope: 4 of 5 workspace projects", "packages/tokens build$ tsup src/index.ts --format esm,cjs --dts", "packages/tokens build: Done",
					"packages/core build$ tsup src/index.ts --format esm,cjs --dts",
					"packages/core build: src/overlay/Popover.tsx(88,7): error TS2322: Type 'string | undefined' is not assignable to type 'Placement'.",
					"packages/core build:   Type 'undefined' is not assignable to type 'Placement'.",
					"packages/core build: Error: error occurred in dts build", "packages/core build: DTS Build error",
					"packages/core build: Failed", "/home/runner/work/quartz/quartz/packages/core:", " ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL  @quartzui/core@0.14.0 build: `tsup src/index.ts --format esm,cjs --dts`", "Exit status 1"}
			}},
		},
		authors:  []string{"sofiaperez", "dkwon", "rune-h"},
		messages: []string{"Popover: flip on overflow", "Tokens: dark elevation scale", "Icons: add 24 new glyphs", "Core: focus ring tokens", "React: forwardRef on Select"},
		start:    time.Date(2026, 10, 2, 8, 0, 0, 0, time.UTC),
		expect: rsExpect{verdict: "flaky", mechanism: "rate-limit", cause: "API rate limit exceeded",
			producer: &rsAnchor{file: "scripts/release-notes.sh", from: "resp=$(curl", to: "per_page=100"},
			// The script runs inside the job that publishes, before the publish
			// step and in the same workspace: nothing proves it leaves the
			// published files alone, so the change is a production change.
			patch: true, patchFilesAny: []string{"scripts/release-notes.sh", ".github/workflows/canary.yml"}, ciOnly: &rsFalse, affected: "npm package", pattern: "intermittent"},
	}
}
