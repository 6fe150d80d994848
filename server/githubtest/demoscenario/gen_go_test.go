package demoscenario

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

const goVersion = "1.23.4"

// goSumGeneration counts dependency bumps merged before t: the setup-go
// cache key hashes go.sum, so it changes with every bump.
func goSumGeneration(runs []plannedRun, t time.Time) int {
	n := 0
	for _, p := range runs {
		if p.pr == nil && p.created.Before(t) && strings.HasPrefix(p.message, "deps:") {
			n++
		}
	}
	return n
}

// cacheKey is setup-go's cache key for a go.sum generation.
func cacheKey(gen int) string {
	r := rand.New(rand.NewPCG(seed, uint64(1000+gen)))
	return fmt.Sprintf("setup-go-Linux-x64-ubuntu24-go-%s-%s", goVersion, hexString(r, 64))
}

// setupGo writes the actions/setup-go step; a cache hit restores the
// module and build caches.
func (w *logWriter) setupGo(p *plannedRun, key string, env [][2]string) {
	w.begin("Run actions/setup-go@v5")
	w.line("##[group]Run actions/setup-go@v5")
	w.lines("with:\n  go-version-file: go.mod\n  check-latest: false\n  token: ***\n  cache: true")
	w.envBlock(env)
	w.line("##[endgroup]")
	root := "/opt/hostedtoolcache/go/" + goVersion + "/x64"
	w.line("Setup go version spec %s", goVersion)
	w.line("Found in cache @ %s", root)
	w.line("Added go to the path")
	w.line("Successfully set up Go version %s", goVersion)
	w.wait(120 * time.Millisecond)
	w.line("[command]%s/bin/go env GOMODCACHE", root)
	w.line("[command]%s/bin/go env GOCACHE", root)
	w.line("/home/runner/go/pkg/mod")
	w.line("/home/runner/.cache/go-build")
	w.wait(250 * time.Millisecond)
	if p.cacheHit {
		size := 231_000_000 + w.r.IntN(19_000_000)
		part := size * (55 + w.r.IntN(40)) / 100
		w.line("Cache hit for: %s", key)
		w.wait(time.Second)
		w.line("Received %d of %d (%.1f%%), %.1f MBs/sec", part, size, 100*float64(part)/float64(size), 150+60*w.r.Float64())
		w.wait(400 * time.Millisecond)
		w.line("Received %d of %d (100.0%%), %.1f MBs/sec", size, size, 120+60*w.r.Float64())
		w.line("Cache Size: ~%d MB (%d B)", size/(1<<20), size)
		w.line("[command]/usr/bin/tar -xf /home/runner/work/_temp/%s/cache.tzst -P -C /home/runner/work/%s/%s --use-compress-program unzstd", uuid(w.r), repoName, repoName)
		w.wait(1800 * time.Millisecond)
		w.line("Cache restored successfully")
		w.line("Cache restored from key: %s", key)
	} else {
		w.line("Cache is not found")
	}
	w.line("go version go%s linux/amd64", goVersion)
	w.line("")
	w.line("##[group]go env")
	w.lines("GO111MODULE=''\nGOARCH='amd64'\nGOBIN=''\nGOCACHE='/home/runner/.cache/go-build'\nGOENV='/home/runner/.config/go/env'\nGOFLAGS=''\n" +
		"GOHOSTARCH='amd64'\nGOHOSTOS='linux'\nGOMODCACHE='/home/runner/go/pkg/mod'\nGOOS='linux'\nGOPATH='/home/runner/go'\n" +
		"GOPROXY='https://proxy.golang.org,direct'\nGOROOT='" + root + "'\nGOTOOLCHAIN='local'\nGOVERSION='go" + goVersion + "'")
	w.line("##[endgroup]")
	w.end("success")
}

// setupGoPost writes setup-go's post step, which saves the cache when the
// job succeeded and it was not restored.
func (w *logWriter) setupGoPost(p *plannedRun, key string) {
	w.begin("Post Run actions/setup-go@v5")
	w.line("Post job cleanup.")
	if p.cacheHit {
		w.line("Cache hit occurred on the primary key %s, not saving cache.", key)
	} else {
		w.line("[command]/usr/bin/tar --posix -cf cache.tzst --exclude cache.tzst -P -C /home/runner/work/%s/%s --files-from manifest.txt --use-compress-program zstdmt", repoName, repoName)
		w.wait(9 * time.Second)
		w.line("Sent %d of %d (100.0%%), %.1f MBs/sec", 233_018_112, 233_018_112, 80+40*w.r.Float64())
		w.line("Cache saved with the key: %s", key)
	}
	w.end("success")
}

// goDownloads writes the "go: downloading" lines of a cold module cache.
func (w *logWriter) goDownloads(mods ...string) {
	for _, m := range mods {
		w.line("go: downloading %s", m)
		w.wait(60 * time.Millisecond)
	}
}

// gooseModules are what `go run goose@…` downloads into a cold cache.
var gooseModules = []string{
	"github.com/pressly/goose/v3 v3.23.0",
	"github.com/mfridman/interpolate v0.0.2",
	"github.com/sethvargo/go-retry v0.3.0",
	"go.uber.org/multierr v1.11.0",
	"golang.org/x/sync v0.9.0",
	"github.com/jackc/pgx/v5 v5.7.1",
	"github.com/jackc/pgpassfile v1.0.0",
	"github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761",
	"github.com/jackc/puddle/v2 v2.2.2",
	"golang.org/x/crypto v0.29.0",
	"golang.org/x/text v0.20.0",
}

// packages of the repository, in `go list ./...` order, with whether they
// have unit tests.
var goPackages = []struct {
	path  string
	tests bool
}{
	{"cmd/tally", true}, {"internal/api", true}, {"internal/config", false},
	{"internal/ingest", true}, {"internal/quota", true}, {"internal/rollup", true}, {"internal/store", true},
}

// goTestOK writes the result line of a passing package.
func (w *logWriter) goTestOK(pkg string, minSec float64) {
	d := minSec + 2.5*w.r.Float64()
	w.wait(time.Duration(d * float64(time.Second)))
	w.line("ok  \tgithub.com/%s/%s\t%.3fs", fullName, pkg, d)
}
