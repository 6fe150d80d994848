package patch

import (
	"strings"
	"testing"
)

func TestSetJobPermission(t *testing.T) {
	src := "jobs:\n  build:\n    runs-on: ubuntu-latest\n    permissions:\n      contents: read\n    steps:\n      - run: make\n  other:\n    runs-on: ubuntu-latest\n"
	out, err := SetJobPermission([]byte(src), 2, []string{"contents: read"}, "packages", "write")
	if err != nil {
		t.Fatal(err)
	}
	if want := "    permissions:\n      packages: write\n      contents: read\n"; !strings.Contains(string(out), want) {
		t.Errorf("existing block: got\n%s", out)
	}
	out, err = SetJobPermission([]byte(src), 8, []string{"contents: read"}, "packages", "write")
	if err != nil {
		t.Fatal(err)
	}
	if want := "  other:\n    permissions:\n      contents: read\n      packages: write\n    runs-on: ubuntu-latest"; !strings.Contains(string(out), want) {
		t.Errorf("new block: got\n%s", out)
	}
	read := strings.Replace(src, "contents: read\n    steps", "packages: read\n    steps", 1)
	out, err = SetJobPermission([]byte(read), 2, nil, "packages", "write")
	if err != nil || !strings.Contains(string(out), "      packages: write\n    steps") || strings.Contains(string(out), "packages: read") {
		t.Errorf("read raised to write: %v\n%s", err, out)
	}
	all := strings.Replace(src, "    permissions:\n      contents: read\n", "    permissions: read-all\n", 1)
	if _, err := SetJobPermission([]byte(all), 2, nil, "packages", "write"); err == nil {
		t.Error("a scalar permissions value was edited")
	}
}
