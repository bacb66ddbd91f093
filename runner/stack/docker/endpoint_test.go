package docker

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// store writes a context as the docker CLI's context store keeps it, under
// the directory name docker CLI 20.10 gave it (sha256 of the name).
func store(t *testing.T, dir, id, meta string, tls map[string][]byte) {
	t.Helper()
	m := filepath.Join(dir, "contexts", "meta", id)
	if err := os.MkdirAll(m, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(m, "meta.json"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	if len(tls) > 0 {
		d := filepath.Join(dir, "contexts", "tls", id, "docker")
		os.MkdirAll(d, 0o700)
		for name, b := range tls {
			os.WriteFile(filepath.Join(d, name), b, 0o600)
		}
	}
}

// TestContextEndpoint reads contexts as `docker context create` writes
// them (the directory names below are what it wrote for "lab" and
// "tlsctx"), and a missing one says how to create it.
func TestContextEndpoint(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("DOCKER_CONFIG", dir)
	store(t, dir, "a51146d38077ff992eba84cf1d5e9b249073503eb74868699016153b031a38f7",
		`{"Name":"lab","Metadata":{},"Endpoints":{"docker":{"Host":"ssh://me@lab","SkipTLSVerify":false}}}`, nil)
	if ep, err := ContextEndpoint("lab"); err != nil || ep != (Endpoint{Host: "ssh://me@lab"}) {
		t.Errorf("context lab: %+v, %v", ep, err)
	}
	store(t, dir, "71614c1fecf740cb7c15fc358b0458ce7ab245624a47b58c430fc3334c3d64f2",
		`{"Name":"tlsctx","Metadata":{},"Endpoints":{"docker":{"Host":"tcp://10.0.0.9:2376","SkipTLSVerify":false}}}`,
		map[string][]byte{"ca.pem": []byte("ca"), "cert.pem": []byte("cert"), "key.pem": []byte("key")})
	ep, err := ContextEndpoint("tlsctx")
	if err != nil || ep.Host != "tcp://10.0.0.9:2376" || filepath.Base(ep.CA) != "ca.pem" || filepath.Base(ep.Cert) != "cert.pem" || filepath.Base(ep.Key) != "key.pem" {
		t.Errorf("context tlsctx: %+v, %v", ep, err)
	}
	if _, err := ContextEndpoint("missing"); err == nil || !strings.Contains(err.Error(), "docker context create missing") {
		t.Errorf("a missing context: %v", err)
	}
}

// TestTLSEndpoint: an engine behind TLS is reached with the context's CA,
// refused without it, and reached when told to skip verifying.
func TestTLSEndpoint(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Api-Version", "1.41")
		w.Write([]byte("OK"))
	}))
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600)
	host := "tcp://" + strings.TrimPrefix(srv.URL, "https://")
	for _, tc := range []struct {
		name string
		ep   Endpoint
		ok   bool
	}{
		{"with the CA", Endpoint{Host: host, CA: ca}, true},
		{"without it", Endpoint{Host: host}, false},
		{"skipping verification", Endpoint{Host: host, SkipTLSVerify: true}, true},
	} {
		e, err := At(tc.ep)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err = e.Ping(ctx)
		cancel()
		e.Close()
		if (err == nil) != tc.ok {
			t.Errorf("%s: ping error %v", tc.name, err)
		}
	}
}
