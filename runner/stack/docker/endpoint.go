package docker

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/docker/docker/client"
)

// Endpoint is how an engine is reached: its host (unix://, tcp:// or
// ssh://, as DOCKER_HOST takes them) and, for tcp, its TLS material.
type Endpoint struct {
	Host          string
	CA, Cert, Key string // PEM files; empty: none
	SkipTLSVerify bool
}

// At connects to the engine at ep. ssh:// runs `ssh HOST docker system
// dial-stdio` and speaks the API over its standard input and output, as the
// docker CLI does: the remote user needs the docker CLI and access to its
// socket. A tcp endpoint with TLS material (or told to skip verifying) is
// spoken to over https.
func At(ep Endpoint) (*Engine, error) {
	u, err := url.Parse(ep.Host)
	if err != nil {
		return nil, fmt.Errorf("engine host %q: %w", ep.Host, err)
	}
	opts := []client.Opt{client.WithAPIVersionNegotiation()}
	if ep.CA != "" || ep.Cert != "" || ep.SkipTLSVerify {
		cfg, err := tlsConfig(ep)
		if err != nil {
			return nil, err
		}
		// The HTTP client first: WithHost then sets up its transport's dialing.
		opts = append(opts, client.WithHTTPClient(&http.Client{Transport: &http.Transport{TLSClientConfig: cfg}}))
	}
	if u.Scheme == "ssh" {
		opts = append(opts, client.WithHost("http://docker.invalid"), client.WithDialContext(sshDialer(u)))
	} else {
		opts = append(opts, client.WithHost(ep.Host))
	}
	cli, err := client.NewClientWithOpts(opts...)
	if err != nil {
		return nil, fmt.Errorf("docker client for %s: %w", ep.Host, err)
	}
	return &Engine{cli: cli}, nil
}

func tlsConfig(ep Endpoint) (*tls.Config, error) {
	cfg := &tls.Config{InsecureSkipVerify: ep.SkipTLSVerify, MinVersion: tls.VersionTLS12}
	if ep.CA != "" {
		pem, err := os.ReadFile(ep.CA)
		if err != nil {
			return nil, fmt.Errorf("engine %s: CA: %w", ep.Host, err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("engine %s: no certificate in %s", ep.Host, ep.CA)
		}
	}
	if ep.Cert != "" {
		pair, err := tls.LoadX509KeyPair(ep.Cert, ep.Key)
		if err != nil {
			return nil, fmt.Errorf("engine %s: client certificate: %w", ep.Host, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

// ContextEndpoint is the endpoint a Docker context names, read from the
// docker CLI's context store ($DOCKER_CONFIG, or ~/.docker):
// contexts/meta/<sha256 of the name>/meta.json, and its TLS material in
// contexts/tls/<same>/docker/{ca,cert,key}.pem where the context has any.
func ContextEndpoint(name string) (Endpoint, error) {
	dir := os.Getenv("DOCKER_CONFIG")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return Endpoint{}, err
		}
		dir = filepath.Join(home, ".docker")
	}
	sum := sha256.Sum256([]byte(name))
	id := hex.EncodeToString(sum[:])
	path := filepath.Join(dir, "contexts", "meta", id, "meta.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return Endpoint{}, fmt.Errorf("docker context %q: %w (create it with `docker context create %s --docker host=...`)", name, err, name)
	}
	var meta struct {
		Endpoints map[string]struct {
			Host          string `json:"Host"`
			SkipTLSVerify bool   `json:"SkipTLSVerify"`
		} `json:"Endpoints"`
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		return Endpoint{}, fmt.Errorf("docker context %q: %s: %w", name, path, err)
	}
	d := meta.Endpoints["docker"]
	if d.Host == "" {
		return Endpoint{}, fmt.Errorf("docker context %q names no docker endpoint (%s)", name, path)
	}
	ep := Endpoint{Host: d.Host, SkipTLSVerify: d.SkipTLSVerify}
	tlsDir := filepath.Join(dir, "contexts", "tls", id, "docker")
	for file, dst := range map[string]*string{"ca.pem": &ep.CA, "cert.pem": &ep.Cert, "key.pem": &ep.Key} {
		if p := filepath.Join(tlsDir, file); fileExists(p) {
			*dst = p
		}
	}
	return ep, nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// sshDialer dials the engine through ssh: each connection is one
// `docker system dial-stdio` on the remote host.
func sshDialer(u *url.URL) func(ctx context.Context, network, addr string) (net.Conn, error) {
	args := []string{"-o", "ConnectTimeout=30", "-T"}
	if u.Port() != "" {
		args = append(args, "-p", u.Port())
	}
	target := u.Hostname()
	if u.User != nil {
		target = u.User.Username() + "@" + target
	}
	args = append(args, "--", target, "docker", "system", "dial-stdio")
	return func(ctx context.Context, _, _ string) (net.Conn, error) {
		cmd := exec.Command("ssh", args...)
		in, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		cmd.Stderr = io.Discard
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("ssh to %s: %w", target, err)
		}
		return &cmdConn{cmd: cmd, in: in, out: out}, nil
	}
}

// cmdConn is a connection over a command's standard input and output.
type cmdConn struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  io.ReadCloser
	once sync.Once
}

func (c *cmdConn) Read(b []byte) (int, error)  { return c.out.Read(b) }
func (c *cmdConn) Write(b []byte) (int, error) { return c.in.Write(b) }
func (c *cmdConn) Close() error {
	c.once.Do(func() {
		c.in.Close()
		c.out.Close()
		c.cmd.Process.Kill()
		c.cmd.Wait()
	})
	return nil
}
func (c *cmdConn) LocalAddr() net.Addr              { return dummyAddr{} }
func (c *cmdConn) RemoteAddr() net.Addr             { return dummyAddr{} }
func (c *cmdConn) SetDeadline(time.Time) error      { return nil }
func (c *cmdConn) SetReadDeadline(time.Time) error  { return nil }
func (c *cmdConn) SetWriteDeadline(time.Time) error { return nil }

type dummyAddr struct{}

func (dummyAddr) Network() string { return "ssh" }
func (dummyAddr) String() string  { return "ssh" }
