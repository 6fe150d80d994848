package impact

import (
	"fmt"
	"path"
	"strings"
)

// deployAction reads a command that deploys to a running environment (helm
// upgrade, kubectl apply, terraform apply, flyctl deploy, …) run from dir. It
// returns nil for anything else. Whether the target is a throwaway test
// cluster is decided per job, not here.
func deployAction(tool string, rest []string, dir string) *cliAction {
	sub := firstWord(rest)
	act := &cliAction{publishes: true, kind: Manifest, what: strings.TrimSpace(tool + " " + sub), source: dir}
	switch {
	case tool == "helm" && (sub == "upgrade" || sub == "install"):
		return helmDeploy(act, rest, dir)
	case (tool == "kubectl" || tool == "oc") && (sub == "apply" || sub == "create" || sub == "replace"):
		return kubectlDeploy(act, rest, dir)
	case tool == "terraform" && sub == "apply", tool == "tofu" && sub == "apply", tool == "terragrunt" && sub == "apply":
		act.artifact = "infrastructure managed by " + tool + " in " + dir
		act.rules = []rule{extRule{dir: dir, exts: []string{".tf", ".tfvars", ".hcl"}, why: "is Terraform configuration " + tool + " apply deploys"}}
	case (tool == "flyctl" || tool == "fly") && sub == "deploy",
		tool == "gcloud" && (strings.Contains(strings.Join(rest, " "), "run deploy") || strings.Contains(strings.Join(rest, " "), "app deploy")),
		tool == "wrangler" && (sub == "deploy" || sub == "publish"),
		(tool == "serverless" || tool == "sls" || tool == "cdk") && sub == "deploy",
		tool == "pulumi" && sub == "up",
		tool == "netlify" && sub == "deploy" && hasFlag(rest, "--prod"),
		tool == "vercel" && hasFlag(rest, "--prod"),
		tool == "heroku" && strings.HasPrefix(sub, "container:release"),
		tool == "argocd" && sub == "app" && wordAfter(rest, "app") == "sync":
		act.artifact = fmt.Sprintf("deployment by %s", act.what)
		act.rules = []rule{scopedSourceRule{dir: dir, why: "is source that " + act.what + " deploys"}}
	default:
		return nil
	}
	return act
}

// helmDeploy reads `helm upgrade --install NAME CHART -f values.yaml`.
func helmDeploy(act *cliAction, rest []string, dir string) *cliAction {
	var positional []string
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "-f" || a == "--values":
			if i+1 < len(rest) {
				i++
				act.rules = append(act.rules, pathRule{path: joinDir(dir, rest[i]), why: "holds values helm deploys"})
			}
		case strings.HasPrefix(a, "--values="):
			act.rules = append(act.rules, pathRule{path: joinDir(dir, strings.TrimPrefix(a, "--values=")), why: "holds values helm deploys"})
		case strings.HasPrefix(a, "-"):
			if helmValueFlags[a] && i+1 < len(rest) {
				i++
			}
		default:
			positional = append(positional, a)
		}
	}
	release, chart := "", ""
	if len(positional) >= 3 {
		release, chart = positional[1], positional[2]
	}
	act.artifact = "Helm release " + release
	if chart != "" && (strings.HasPrefix(chart, ".") || strings.HasPrefix(chart, "/") || strings.Count(chart, "/") != 1) && !strings.Contains(chart, "://") {
		act.source = joinDir(dir, chart)
		act.rules = append(act.rules, dirRule{dir: act.source, why: "is part of the chart helm deploys as release " + release})
	}
	return act
}

// helmValueFlags are helm flags that take a value.
var helmValueFlags = map[string]bool{
	"-n": true, "--namespace": true, "--version": true, "--set": true, "--set-string": true,
	"--set-file": true, "--timeout": true, "--kubeconfig": true, "--kube-context": true, "--repo": true,
	"--post-renderer": true,
}

// kubectlDeploy reads `kubectl apply -f PATH` or `-k DIR`.
func kubectlDeploy(act *cliAction, rest []string, dir string) *cliAction {
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		var target string
		switch {
		case (a == "-f" || a == "--filename" || a == "-k" || a == "--kustomize") && i+1 < len(rest):
			i++
			target = rest[i]
		case strings.HasPrefix(a, "--filename="), strings.HasPrefix(a, "--kustomize="):
			_, target, _ = strings.Cut(a, "=")
		}
		if target == "" || target == "-" || strings.Contains(target, "://") {
			continue
		}
		p := joinDir(dir, target)
		act.artifact, act.source = "Kubernetes objects in "+p, p
		act.rules = append(act.rules, pathRule{path: p, why: "is applied by kubectl"}, dirRule{dir: p, why: "is applied by kubectl"})
	}
	if act.artifact == "" {
		act.artifact = "Kubernetes objects applied by " + act.what
	}
	return act
}

// joinDir joins a command's path argument to its working directory.
func joinDir(dir, p string) string {
	return cleanDir(path.Join(dir, p))
}

// testClusterCommand reports whether a command creates a throwaway cluster
// (kind, k3d, minikube, ctlptl), which makes the job's deploys tests.
func testClusterCommand(tool string, rest []string) bool {
	sub := firstWord(rest)
	switch tool {
	case "kind":
		return sub == "create" || sub == "load"
	case "k3d":
		return sub == "cluster" && wordAfter(rest, "cluster") == "create"
	case "minikube":
		return sub == "start"
	case "ctlptl":
		return sub == "create" || sub == "apply"
	}
	return false
}

// testClusterActions set up throwaway clusters in a job.
var testClusterActions = map[string]bool{
	"helm/kind-action": true, "engineerd/setup-kind": true, "medyagh/setup-minikube": true,
	"absaoss/k3d-action": true, "nolar/setup-k3d-k3s": true, "container-tools/kind-action": true,
	"manusa/actions-setup-minikube": true,
}

// deployActions are marketplace actions that deploy to a running
// environment, with the artifact they stand for.
var deployActions = map[string]string{
	"azure/k8s-deploy": "Kubernetes deployment (azure/k8s-deploy)", "azure/webapps-deploy": "Azure web app",
	"aws-actions/amazon-ecs-deploy-task-definition": "Amazon ECS service", "google-github-actions/deploy-cloudrun": "Cloud Run service",
	"google-github-actions/deploy-appengine": "App Engine app", "superfly/flyctl-actions": "Fly.io app",
	"cloudflare/wrangler-action": "Cloudflare Worker", "amondnet/vercel-action": "Vercel deployment",
	"actions/deploy-pages": "GitHub Pages site", "peaceiris/actions-gh-pages": "GitHub Pages site",
	"jamesives/github-pages-deploy-action": "GitHub Pages site", "appleboy/ssh-action": "deployment over SSH",
	"nwtgck/actions-netlify": "Netlify site", "akhileshns/heroku-deploy": "Heroku app",
}

// extRule matches files with some extensions under a directory.
type extRule struct {
	dir  string
	exts []string
	why  string
}

func (r extRule) reach(c Change) (bool, string, int) {
	if _, ok := within(r.dir, c.Path); !ok {
		return false, "", 0
	}
	for _, e := range r.exts {
		if strings.HasSuffix(c.Path, e) {
			return true, fmt.Sprintf("%s %s", c.Path, r.why), 2
		}
	}
	return false, "", 0
}

// scopedSourceRule matches product source under a directory.
type scopedSourceRule struct {
	dir string
	why string
}

func (r scopedSourceRule) reach(c Change) (bool, string, int) {
	if _, ok := within(r.dir, c.Path); ok && (productSource(c.Path) || isDockerfile(c.Path)) {
		return true, fmt.Sprintf("%s %s", c.Path, r.why), 2
	}
	return false, "", 0
}
