package apply

import (
	"os"
	"testing"
)

// TestMain keeps the tests' image builds out of the user's cache of build
// times (builds record theirs under os.UserCacheDir).
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gatewaybench-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
