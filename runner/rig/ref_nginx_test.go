package rig

import (
	"context"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestNginxReferences: the two nginx references share one configuration
// head; the static one answers its body, the proxy passes it through.
func TestNginxReferences(t *testing.T) {
	if _, err := exec.LookPath("nginx"); err != nil {
		t.Skip("no nginx")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	body := []byte(`{"ok":"it's here"}`)
	static, url, err := startNginx(ctx, t.TempDir(), "0", body)
	if err != nil {
		t.Fatal(err)
	}
	defer static.stop()
	upstream := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/v1/chat/completions")
	proxy, addr, err := startProxy(ctx, t.TempDir(), "0", upstream)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.stop()
	for _, u := range []string{url, "http://" + addr + "/v1/chat/completions"} {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(got) != string(body) {
			t.Errorf("%s: %d %q", u, resp.StatusCode, got)
		}
	}
}
