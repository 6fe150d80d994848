package causal

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/polylane/polylane/causal/patch"
)

// Playwright keeps its browsers outside node_modules (~/.cache/ms-playwright)
// and downloads them with `playwright install`, which installing the npm
// package does not always run (a warm package-manager cache, pnpm's skipped
// postinstall scripts). Its own error says so ("Executable doesn't exist
// at …ms-playwright…", "Please run the following command to download new
// browsers"), and maintainers add that command as a step before the tests,
// in the package's directory (microsoft/playwright#19837,
// apify/apify-sdk-js#495, github-samples/copilot-workshops#96; Playwright's
// CI guide runs `npx playwright install --with-deps`).

// fixPlaywrightInstall inserts a step that downloads Playwright's browsers
// before the failing step, in the directory of the package that depends on
// Playwright, with the package manager the repository uses.
func fixPlaywrightInstall(x *fixContext) (*fixPlan, error) {
	if x.wf == nil || x.step == nil || x.job == nil {
		return nil, noFix("the failing workflow step was not located")
	}
	dir, err := x.playwrightPackage()
	if err != nil {
		return nil, err
	}
	for _, s := range x.job.Steps {
		if s == x.step {
			break
		}
		if strings.Contains(s.Run, "playwright install") {
			return nil, noFix("an earlier step already runs `playwright install`; the browsers it downloads are not the ones the tests look for, which is the version to check")
		}
	}
	cmd := "npx playwright install --with-deps"
	switch {
	case x.repoHas(path.Join(dir, "pnpm-lock.yaml")) || x.repoHas("pnpm-lock.yaml"):
		cmd = "pnpm exec playwright install --with-deps"
	case x.repoHas(path.Join(dir, "yarn.lock")) || x.repoHas("yarn.lock"):
		cmd = "yarn playwright install --with-deps"
	}
	step := []string{"name: Install Playwright browsers", "run: " + cmd}
	if dir != "." {
		step = append(step, "working-directory: ./"+dir)
	}
	content, err := x.repo.ReadFile(x.wf.Path)
	if err != nil {
		return nil, noFix("cannot read %s", x.wf.Path)
	}
	out, err := patch.InsertStep(content, stepSpan(x.step), step)
	if err != nil {
		return nil, noFix("%v", err)
	}
	rationale := fmt.Sprintf("Playwright found no browser to launch%s: its browsers are downloaded by `playwright install`, not by installing the npm package, so a job that only installs packages has none. "+
		"The patch adds a step before %q that downloads them (and, with --with-deps, the system libraries they need) for the Playwright version the package pins; the tests themselves are unchanged.",
		cite(x.ids["cause"]...), x.step.DisplayName())
	return &fixPlan{Title: "Install Playwright's browsers before the tests", Rationale: rationale,
		Edits: []patch.FileEdit{{Path: x.wf.Path, Old: content, New: out}}}, nil
}

// playwrightPackage returns the directory of the one package.json that
// depends on Playwright ("." for the root), or the one whose directory the
// failing step names when there are several.
func (x *facts) playwrightPackage() (string, error) {
	var dirs []string
	err := fs.WalkDir(x.in.Repo, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && p != ".") {
			return fs.SkipDir
		}
		if d.IsDir() || d.Name() != "package.json" || len(dirs) > 20 {
			return nil
		}
		data, err := x.repo.ReadFile(p)
		if err != nil {
			return nil
		}
		var pkg struct {
			Deps    map[string]string `json:"dependencies"`
			DevDeps map[string]string `json:"devDependencies"`
		}
		if json.Unmarshal(data, &pkg) != nil {
			return nil
		}
		for _, name := range []string{"playwright", "@playwright/test", "playwright-core", "playwright-chromium"} {
			if pkg.Deps[name] != "" || pkg.DevDeps[name] != "" {
				dirs = append(dirs, path.Dir(p))
				break
			}
		}
		return nil
	})
	if err != nil || len(dirs) == 0 {
		return "", noFix("no package.json of the repository depends on Playwright, so where to run `playwright install` is unknown")
	}
	if len(dirs) == 1 {
		return dirs[0], nil
	}
	var named []string
	for _, d := range dirs {
		if d != "." && strings.Contains(x.step.Run+" "+x.step.WorkingDirectory, d) {
			named = append(named, d)
		}
	}
	if len(named) == 1 {
		return named[0], nil
	}
	return "", noFix("several packages depend on Playwright (%s) and the step does not say which one it tests", strings.Join(dirs, ", "))
}

// repoHas reports whether the repository holds the file p.
func (x *facts) repoHas(p string) bool {
	_, err := fs.Stat(x.in.Repo, p)
	return err == nil
}
