package apply

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// testDir holds what the tests share for the life of the process: the
// built CLI and the build-times cache.
var testDir string

// TestMain keeps the tests' image builds out of the user's cache of build
// times. It moved XDG_CACHE_HOME once, and with it Go's build cache and
// pip's: every go build and prepare step under test compiled from nothing.
func TestMain(m *testing.M) {
	var err error
	if testDir, err = os.MkdirTemp("", "gatewaybench-test-"); err != nil {
		panic(err)
	}
	buildTimesPath = func() string { return filepath.Join(testDir, "build-times.json") }
	code := m.Run()
	os.RemoveAll(testDir)
	os.Exit(code)
}

// TestBuildsShareTheGoCache: the go builds the tests run (the runner, the
// mock image, one-api's prepare step) use the user's Go build cache, not
// one made for the test process.
func TestBuildsShareTheGoCache(t *testing.T) {
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); strings.Contains(got, "gatewaybench-cache-") {
		t.Errorf("go builds under test use %s, a cache of their own", got)
	}
}
