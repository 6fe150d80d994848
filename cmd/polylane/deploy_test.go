package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rs/zerolog"
	"go.yaml.in/yaml/v3"

	"github.com/polylane/polylane/server"
)

// deployDir is the repository's deploy/ directory.
const deployDir = "../../deploy"

// requiredSettings must reach serve in every deployment: the webhook
// secret, the app id, its private key (inline or a file) and the database.
var requiredSettings = [][]string{
	{"POLYLANE_WEBHOOK_SECRET"},
	{"POLYLANE_GITHUB_APP_ID"},
	{"POLYLANE_GITHUB_PRIVATE_KEY", "POLYLANE_GITHUB_PRIVATE_KEY_FILE"},
	{"POLYLANE_DATABASE_URL"},
}

// checkEnv asserts that every name is a setting and that the required ones
// are among them.
func checkEnv(t *testing.T, where string, names map[string]bool) {
	t.Helper()
	for n := range names {
		if !knownSetting(n) {
			t.Errorf("%s sets %s, which is not a setting of polylane", where, n)
		}
	}
	for _, alts := range requiredSettings {
		if !slices.ContainsFunc(alts, func(n string) bool { return names[n] }) {
			t.Errorf("%s does not provide %s", where, strings.Join(alts, " or "))
		}
	}
}

// probeRouted answers whether GET path is routed by serve's server (a
// status other than 404).
func probeRouted(t *testing.T, path string) bool {
	t.Helper()
	srv := server.New(server.Options{Logger: zerolog.Nop()})
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code != http.StatusNotFound
}

type composeFile struct {
	Services map[string]struct {
		Image       string            `yaml:"image"`
		EnvFile     []string          `yaml:"env_file"`
		Environment map[string]string `yaml:"environment"`
		Ports       []string          `yaml:"ports"`
		ReadOnly    bool              `yaml:"read_only"`
		CapDrop     []string          `yaml:"cap_drop"`
		DependsOn   map[string]struct {
			Condition string `yaml:"condition"`
		} `yaml:"depends_on"`
		Volumes     []string `yaml:"volumes"`
		Healthcheck struct {
			Test []string `yaml:"test"`
		} `yaml:"healthcheck"`
	} `yaml:"services"`
	Volumes map[string]any `yaml:"volumes"`
}

// TestComposeAgreesWithTheCode: the compose file publishes the default
// port, health-checks both services (Polylane with its own healthcheck
// command), keeps PostgreSQL on a volume, and its environment plus the
// env file setup writes hold only known settings and every required one.
func TestComposeAgreesWithTheCode(t *testing.T) {
	var c composeFile
	decodeYAMLFile(t, filepath.Join(deployDir, "docker-compose.yml"), &c)
	pg, app := c.Services["postgres"], c.Services["polylane"]
	if !strings.HasPrefix(pg.Image, "postgres:16") || len(pg.Healthcheck.Test) == 0 {
		t.Errorf("postgres service: image %q, healthcheck %v", pg.Image, pg.Healthcheck.Test)
	}
	if len(pg.Volumes) == 0 || c.Volumes[strings.Split(pg.Volumes[0], ":")[0]] == nil && len(c.Volumes) == 0 {
		t.Errorf("postgres keeps no named volume: %v", pg.Volumes)
	}
	if app.DependsOn["postgres"].Condition != "service_healthy" {
		t.Errorf("polylane does not wait for a healthy postgres")
	}
	port := defaultPort()
	if len(app.Ports) != 1 || !strings.HasSuffix(app.Ports[0], ":"+port) {
		t.Errorf("polylane publishes %v, want the container's port %s", app.Ports, port)
	}
	hc := app.Healthcheck.Test
	if len(hc) < 3 || hc[0] != "CMD" || !strings.HasSuffix(hc[1], "/polylane") || commands[hc[2]].run == nil {
		t.Errorf("polylane's healthcheck %v does not run a polylane command", hc)
	}
	if !app.ReadOnly || !slices.Contains(app.CapDrop, "ALL") {
		t.Errorf("polylane runs with a writable root or capabilities: read_only %v, cap_drop %v", app.ReadOnly, app.CapDrop)
	}
	names := map[string]bool{}
	for k := range app.Environment {
		names[k] = true
	}
	if len(app.EnvFile) != 1 {
		t.Fatalf("env_file %v, want the one polylane setup writes", app.EnvFile)
	}
	example := filepath.Join(deployDir, app.EnvFile[0]+".example")
	f, err := os.Open(example)
	if err != nil {
		t.Fatalf("the env file's example: %v", err)
	}
	defer f.Close()
	values, err := parseConfigFile(f, example)
	if err != nil {
		t.Fatal(err)
	}
	for k := range values {
		names[k] = true
	}
	checkEnv(t, "docker-compose.yml with "+example, names)
	if _, ok := app.Environment["POLYLANE_ADDR"]; ok && app.Environment["POLYLANE_ADDR"] != ":"+port {
		t.Errorf("POLYLANE_ADDR %q does not listen on the published port %s", app.Environment["POLYLANE_ADDR"], port)
	}
}

// TestSetupWritesWhatComposeExpects: the keys of the example env file are
// the keys polylane setup writes.
func TestSetupWritesWhatComposeExpects(t *testing.T) {
	text := configLines(appCredentials{ID: 1, Slug: "s", PEM: testKey, WebhookSecret: "w", ClientID: "c", ClientSecret: "x"},
		gitHubEndpoints{Web: "https://github.com", API: "https://api.github.com/"}, "", "https://p.example", "k", "now")
	written, err := parseConfigFile(strings.NewReader(text), "written")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(deployDir, "polylane.env.example"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	example, err := parseConfigFile(f, "polylane.env.example")
	if err != nil {
		t.Fatal(err)
	}
	if a, b := strings.Join(sortedKeys(written), " "), strings.Join(sortedKeys(example), " "); a != b {
		t.Errorf("setup writes %s; the example has %s", a, b)
	}
}

// TestAppManifestMatchesSetup: deploy/github-app-manifest.json asks for
// what polylane setup asks for, and delivers to the webhook route.
func TestAppManifestMatchesSetup(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(deployDir, "github-app-manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m appManifest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	want := newManifest(m.Name, "https://polylane.example.com"+WebhookPath, "https://polylane.example.com", m.RedirectURL, false)
	got, _ := json.Marshal(m)
	exp, _ := json.Marshal(want)
	if !bytes.Equal(got, exp) {
		t.Errorf("the app manifest differs from setup's:\n got %s\nwant %s", got, exp)
	}
}

// k8sObject is the part of a Kubernetes object the checks read.
type k8sObject struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name   string            `yaml:"name"`
		Labels map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Data map[string]string `yaml:"data"`
	Spec struct {
		Replicas     int `yaml:"replicas"`
		MinAvailable int `yaml:"minAvailable"`
		Selector     struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"selector"`
		Ports []struct {
			TargetPort string `yaml:"targetPort"`
		} `yaml:"ports"`
		Template struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec podSpec `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
	raw map[string]any
}

type podSpec struct {
	SecurityContext struct {
		RunAsNonRoot bool `yaml:"runAsNonRoot"`
		RunAsUser    int  `yaml:"runAsUser"`
	} `yaml:"securityContext"`
	InitContainers []container `yaml:"initContainers"`
	Containers     []container `yaml:"containers"`
}

type container struct {
	Name  string   `yaml:"name"`
	Args  []string `yaml:"args"`
	Ports []struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
	} `yaml:"ports"`
	Env     []envVar `yaml:"env"`
	EnvFrom []struct {
		ConfigMapRef struct {
			Name string `yaml:"name"`
		} `yaml:"configMapRef"`
	} `yaml:"envFrom"`
	ReadinessProbe probe `yaml:"readinessProbe"`
	LivenessProbe  probe `yaml:"livenessProbe"`
	Resources      struct {
		Requests map[string]string `yaml:"requests"`
		Limits   map[string]string `yaml:"limits"`
	} `yaml:"resources"`
	SecurityContext struct {
		AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
		ReadOnlyRootFilesystem   bool  `yaml:"readOnlyRootFilesystem"`
		Capabilities             struct {
			Drop []string `yaml:"drop"`
		} `yaml:"capabilities"`
	} `yaml:"securityContext"`
}

type envVar struct {
	Name      string `yaml:"name"`
	ValueFrom *struct {
		SecretKeyRef *struct {
			Name string `yaml:"name"`
		} `yaml:"secretKeyRef"`
	} `yaml:"valueFrom"`
}

type probe struct {
	HTTPGet struct {
		Path string `yaml:"path"`
		Port string `yaml:"port"`
	} `yaml:"httpGet"`
}

// readK8s parses every manifest the kustomization lists.
func readK8s(t *testing.T) map[string]k8sObject {
	t.Helper()
	dir := filepath.Join(deployDir, "kubernetes")
	var kust struct {
		Resources []string `yaml:"resources"`
	}
	decodeYAMLFile(t, filepath.Join(dir, "kustomization.yaml"), &kust)
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	objs := map[string]k8sObject{}
	for _, f := range files {
		if filepath.Base(f) == "kustomization.yaml" {
			continue
		}
		if !slices.Contains(kust.Resources, filepath.Base(f)) {
			t.Errorf("kustomization.yaml does not list %s", filepath.Base(f))
		}
		for _, o := range decodeYAMLDocs(t, f) {
			objs[o.Kind] = o
		}
	}
	for _, r := range kust.Resources {
		if _, err := os.Stat(filepath.Join(dir, r)); err != nil {
			t.Errorf("kustomization.yaml lists %s: %v", r, err)
		}
	}
	return objs
}

// TestKubernetesAgreesWithTheCode checks the Deployment, Service,
// ConfigMap and PodDisruptionBudget against the code: ports, probe routes,
// settings, security context, resources, selectors and the migration step.
func TestKubernetesAgreesWithTheCode(t *testing.T) {
	objs := readK8s(t)
	dep, ok := objs["Deployment"]
	if !ok {
		t.Fatal("no Deployment")
	}
	if dep.Spec.Replicas < 2 {
		t.Errorf("replicas %d, want 2 or more", dep.Spec.Replicas)
	}
	pod := dep.Spec.Template.Spec
	if !pod.SecurityContext.RunAsNonRoot || pod.SecurityContext.RunAsUser == 0 {
		t.Errorf("the pod may run as root")
	}
	if len(pod.Containers) != 1 || len(pod.InitContainers) != 1 {
		t.Fatalf("want one container and one init container, got %d and %d", len(pod.Containers), len(pod.InitContainers))
	}
	c, mig := pod.Containers[0], pod.InitContainers[0]
	checkContainer(t, c, objs["ConfigMap"])
	if len(mig.Args) != 1 || mig.Args[0] != cmdMigrate ||
		!slices.ContainsFunc(mig.Env, func(e envVar) bool { return e.Name == "POLYLANE_DATABASE_URL" }) {
		t.Errorf("the init container does not run polylane migrate on the database: %v", mig.Args)
	}
	checkHardened(t, mig)
	labels := dep.Spec.Template.Metadata.Labels
	for kind, sel := range map[string]map[string]string{
		"Deployment": dep.Spec.Selector.MatchLabels, "PodDisruptionBudget": objs["PodDisruptionBudget"].Spec.Selector.MatchLabels,
		"Service": serviceSelector(objs["Service"]),
	} {
		if len(sel) == 0 {
			t.Errorf("%s has no selector", kind)
		}
		for k, v := range sel {
			if labels[k] != v {
				t.Errorf("%s selects %s=%s, which the pods do not carry", kind, k, v)
			}
		}
	}
	if svc := objs["Service"]; len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].TargetPort != c.Ports[0].Name {
		t.Errorf("the Service does not target the container's port %q", c.Ports[0].Name)
	}
	if objs["PodDisruptionBudget"].Spec.MinAvailable < 1 {
		t.Errorf("the PodDisruptionBudget keeps no replica")
	}
}

// checkContainer checks serve's container.
func checkContainer(t *testing.T, c container, cm k8sObject) {
	t.Helper()
	if len(c.Args) == 0 || c.Args[0] != cmdServe {
		t.Errorf("the container runs %v, want serve", c.Args)
	}
	if len(c.Ports) != 1 || strconv.Itoa(c.Ports[0].ContainerPort) != defaultPort() {
		t.Errorf("container ports %+v, want serve's default port %s", c.Ports, defaultPort())
	}
	for name, p := range map[string]probe{"readiness": c.ReadinessProbe, "liveness": c.LivenessProbe} {
		if p.HTTPGet.Port != c.Ports[0].Name || !probeRouted(t, p.HTTPGet.Path) {
			t.Errorf("%s probe %+v: not a route of serve on its port", name, p.HTTPGet)
		}
	}
	if c.ReadinessProbe.HTTPGet.Path != "/readyz" || c.LivenessProbe.HTTPGet.Path != "/healthz" {
		t.Errorf("probes: readiness %s, liveness %s", c.ReadinessProbe.HTTPGet.Path, c.LivenessProbe.HTTPGet.Path)
	}
	names := map[string]bool{}
	for _, e := range c.Env {
		names[e.Name] = true
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && e.ValueFrom.SecretKeyRef.Name == "" {
			t.Errorf("%s refers to a secret without a name", e.Name)
		}
	}
	for _, ef := range c.EnvFrom {
		if ef.ConfigMapRef.Name != cm.Metadata.Name {
			t.Errorf("envFrom names ConfigMap %q; the manifests define %q", ef.ConfigMapRef.Name, cm.Metadata.Name)
		}
		for k := range cm.Data {
			names[k] = true
		}
	}
	checkEnv(t, "the Deployment", names)
	for _, secret := range []string{"POLYLANE_WEBHOOK_SECRET", "POLYLANE_DATABASE_URL", "POLYLANE_GITHUB_CLIENT_SECRET", "POLYLANE_DASHBOARD_SESSION_SECRET"} {
		if _, inCM := cm.Data[secret]; inCM {
			t.Errorf("%s is in the ConfigMap; it belongs in the Secret", secret)
		}
	}
	for _, r := range []string{"cpu", "memory"} {
		if c.Resources.Requests[r] == "" || c.Resources.Limits[r] == "" {
			t.Errorf("no %s request or limit", r)
		}
	}
	checkHardened(t, c)
}

// checkHardened asserts a non-root, read-only, capability-free container.
func checkHardened(t *testing.T, c container) {
	t.Helper()
	sc := c.SecurityContext
	if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || !sc.ReadOnlyRootFilesystem || !slices.Contains(sc.Capabilities.Drop, "ALL") {
		t.Errorf("container %s is not hardened: %+v", c.Name, sc)
	}
}

func serviceSelector(o k8sObject) map[string]string {
	spec, _ := o.raw["spec"].(map[string]any)
	sel, _ := spec["selector"].(map[string]any)
	out := map[string]string{}
	for k, v := range sel {
		out[k], _ = v.(string)
	}
	return out
}

func decodeYAMLFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// decodeYAMLDocs reads every document of a multi-document YAML file.
func decodeYAMLDocs(t *testing.T, path string) []k8sObject {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []k8sObject
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for i := 0; ; i++ {
		var node yaml.Node
		err := dec.Decode(&node)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var o k8sObject
		if err := node.Decode(&o); err != nil {
			t.Fatalf("%s document %d: %v", path, i, err)
		}
		if err := node.Decode(&o.raw); err != nil {
			t.Fatalf("%s document %d: %v", path, i, err)
		}
		if o.Kind == "" {
			t.Fatalf("%s document %d has no kind", path, i)
		}
		out = append(out, o)
	}
}
